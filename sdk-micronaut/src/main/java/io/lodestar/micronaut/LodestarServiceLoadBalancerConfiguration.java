package io.lodestar.micronaut;

import io.lodestar.loadbalancer.Strategy;
import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;

/**
 * Per-service overrides under {@code lodestar.loadbalancer.services.<service-id>.*}; what is unset here comes
 * from {@code lodestar.loadbalancer.*}.
 */
@EachProperty(LodestarLoadBalancerConfiguration.PREFIX + ".services")
public class LodestarServiceLoadBalancerConfiguration {
    private final String serviceId;
    private @Nullable Strategy strategy;
    private @Nullable String zone;

    /** @param serviceId the service these settings are for (the property key) */
    public LodestarServiceLoadBalancerConfiguration(@Parameter String serviceId) {
        this.serviceId = serviceId;
    }

    /** @return the service these settings are for */
    public String getServiceId() {
        return serviceId;
    }

    /** @return the strategy for this service, or null for the global one */
    public @Nullable Strategy getStrategy() {
        return strategy;
    }

    /** @param strategy the strategy for this service, or null for the global one */
    public void setStrategy(@Nullable Strategy strategy) {
        this.strategy = strategy;
    }

    /** @return the preferred zone for this service, or null for the global one */
    public @Nullable String getZone() {
        return zone;
    }

    /** @param zone the preferred zone for this service, or null for the global one */
    public void setZone(@Nullable String zone) {
        this.zone = zone;
    }
}
