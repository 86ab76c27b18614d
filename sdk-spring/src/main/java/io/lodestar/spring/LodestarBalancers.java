package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Lodestar {@link LoadBalancer} per service, built from {@code lodestar.loadbalancer.*}, shared by the blocking
 * and the reactive Spring Cloud adapters. A balancer caches its preparation per instance list, so each service keeps
 * its own.
 */
final class LodestarBalancers {
    private final LoadBalancers.Builder builder;
    private final Map<String, LoadBalancer> byService = new ConcurrentHashMap<>();

    /**
     * @throws InvalidLodestarPropertiesException naming each bad {@code lodestar.loadbalancer.*} property
     */
    LodestarBalancers(LodestarProperties.Balancing properties) {
        builder = LoadBalancers.builder(properties.getStrategy());
        if (properties.getPreferZone() != null) {
            builder.selector(Selectors.zonePreference(properties.getPreferZone()));
        }
        if (properties.getSlowStart() != null) {
            builder.slowStart(properties.getSlowStart());
        }
        if (properties.getSeed() != null) {
            builder.seed(properties.getSeed());
        }
        try {
            builder.build(); // at start-up, so that a bad property fails the start, not the first call
        } catch (InvalidArgumentException e) {
            throw InvalidLodestarPropertiesException.of(LodestarProperties.PREFIX + ".loadbalancer", e);
        }
    }

    LoadBalancer forService(String serviceId) {
        return byService.computeIfAbsent(serviceId, this::build);
    }

    // The builder is shared and serviceId() sets a field on it: build one balancer at a time.
    private synchronized LoadBalancer build(String serviceId) {
        return builder.serviceId(serviceId).build();
    }
}
