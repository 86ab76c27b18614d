package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.loadbalancer.CanaryRouting;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.RequestContext;
import io.lodestar.loadbalancer.Selectors;
import io.lodestar.loadbalancer.Strategy;

import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.http.HttpRequest;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Lodestar {@link LoadBalancer} per service, built from {@code lodestar.loadbalancer.*} and the service's own
 * {@code lodestar.loadbalancer.services.<id>.*}, shared by the blocking and the reactive Spring Cloud adapters. A
 * balancer caches its preparation per instance list, so each service keeps its own.
 */
final class LodestarBalancers {
    private final LodestarProperties.Balancing properties;
    private final Map<String, LoadBalancer> byService = new ConcurrentHashMap<>();

    /**
     * Builds the default balancer and each configured service's once, so that a bad property fails the start, not
     * the first call.
     *
     * @throws InvalidLodestarPropertiesException naming each bad {@code lodestar.loadbalancer.*} property
     */
    LodestarBalancers(LodestarProperties.Balancing properties) {
        this.properties = properties;
        build(null, LodestarProperties.PREFIX + ".loadbalancer");
        properties.getServices().keySet().forEach(serviceId -> byService.put(serviceId,
                build(serviceId, LodestarProperties.PREFIX + ".loadbalancer.services." + serviceId)));
    }

    /**
     * What a balancer may read of a Spring Cloud request: its headers (the canary hint), when it carries them.
     *
     * @param springContext {@code Request.getContext()}, or an {@code HttpRequest}
     * @return the request's attributes, or {@link RequestContext#NONE}
     */
    static RequestContext requestContext(Object springContext) {
        if (springContext instanceof RequestDataContext data && data.getClientRequest() != null
                && data.getClientRequest().getHeaders() != null) {
            return data.getClientRequest().getHeaders()::getFirst;
        }
        if (springContext instanceof HttpRequest request) {
            return request.getHeaders()::getFirst;
        }
        return RequestContext.NONE;
    }

    LoadBalancer forService(String serviceId) {
        return byService.computeIfAbsent(serviceId, id -> build(id, LodestarProperties.PREFIX + ".loadbalancer"));
    }

    private LoadBalancer build(String serviceId, String prefix) {
        LodestarProperties.ServiceBalancing own = serviceId == null ? null : properties.getServices().get(serviceId);
        Strategy strategy = own != null && own.getStrategy() != null ? own.getStrategy() : properties.getStrategy();
        String zone = own != null && own.getPreferZone() != null ? own.getPreferZone() : properties.getPreferZone();
        Duration slowStart = own != null && own.getSlowStart() != null ? own.getSlowStart() : properties.getSlowStart();
        LoadBalancers.Builder builder = LoadBalancers.builder(strategy);
        if (serviceId != null) {
            builder.serviceId(serviceId);
        }
        if (zone != null) {
            builder.selector(Selectors.zonePreference(zone));
        }
        if (slowStart != null) {
            builder.slowStart(slowStart);
        }
        if (properties.getSeed() != null) {
            builder.seed(properties.getSeed());
        }
        try {
            LodestarProperties.Canary canary = properties.getCanary();
            if (canary.getPercent() != null || canary.getHintHeader() != null) {
                CanaryRouting routing = CanaryRouting.byMetadata()
                        .percent(canary.getPercent() == null ? 0 : canary.getPercent());
                builder.canary(canary.getHintHeader() == null ? routing
                        : routing.hint(canary.getHintHeader(), canary.getHintValue()));
            }
            return builder.build();
        } catch (InvalidArgumentException e) {
            throw InvalidLodestarPropertiesException.of(prefix, e);
        }
    }
}
