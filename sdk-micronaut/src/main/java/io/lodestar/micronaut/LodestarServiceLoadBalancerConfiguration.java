package io.lodestar.micronaut;

import io.lodestar.loadbalancer.LoadBalancerSettings;
import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;

/**
 * Per-service settings under {@code lodestar.loadbalancer.services.<service-id>.*} ({@link LoadBalancerSettings.Service}:
 * strategy, prefer-zone, slow-start replace the global value, metadata is added to the global entries).
 */
@EachProperty(LodestarLoadBalancerConfiguration.PREFIX + ".services")
public class LodestarServiceLoadBalancerConfiguration extends LoadBalancerSettings.Service {
    private final String serviceId;

    /** @param serviceId the service these settings are for (the property key) */
    public LodestarServiceLoadBalancerConfiguration(@Parameter String serviceId) {
        this.serviceId = serviceId;
    }

    /** @return the service these settings are for */
    public String getServiceId() {
        return serviceId;
    }

    /**
     * @param zone the preferred zone of this service
     * @deprecated the Micronaut module's former name of {@code prefer-zone}; use {@code prefer-zone}, as the Spring
     *     starter does
     */
    @Deprecated
    public void setZone(String zone) {
        setPreferZone(zone);
    }
}
