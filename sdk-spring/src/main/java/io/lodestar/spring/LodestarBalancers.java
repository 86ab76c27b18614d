package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancerSettings;
import io.lodestar.loadbalancer.RequestContext;

import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.http.HttpRequest;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Lodestar {@link LoadBalancer} per service, built by {@link LoadBalancerSettings#toLoadBalancer(String)} from
 * {@code lodestar.loadbalancer.*}, shared by the blocking and the reactive Spring Cloud adapters. A balancer caches
 * its preparation per instance list, so each service keeps its own.
 */
final class LodestarBalancers {
    private static final String PREFIX = LodestarProperties.PREFIX + ".loadbalancer";

    private final LoadBalancerSettings settings;
    private final Map<String, LoadBalancer> byService = new ConcurrentHashMap<>();

    /**
     * Validates every setting once, so that a bad property fails the start, not the first call.
     *
     * @throws InvalidLodestarPropertiesException naming each bad {@code lodestar.loadbalancer.*} property
     */
    LodestarBalancers(LoadBalancerSettings settings) {
        this.settings = settings;
        try {
            settings.validate();
        } catch (InvalidArgumentException e) {
            throw InvalidLodestarPropertiesException.ofProperties(PREFIX, e);
        }
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

    /** @throws io.lodestar.core.InvalidArgumentException when {@code serviceId} is not a valid service id */
    LoadBalancer forService(String serviceId) {
        return byService.computeIfAbsent(serviceId, settings::toLoadBalancer);
    }
}
