package io.lodestar.micronaut;

import io.lodestar.loadbalancer.LoadBalancerSettings;
import io.micronaut.context.annotation.ConfigurationBuilder;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;

import java.util.List;

/**
 * The {@code lodestar.loadbalancer.*} properties: how {@code @Client(id = …)} chooses an instance. The settings,
 * their defaults and their validation are {@link LoadBalancerSettings}' (the Spring starter binds the same class);
 * {@code services.<id>.*} arrive as {@link LodestarServiceLoadBalancerConfiguration} beans.
 */
// services.<id>.* are the @EachProperty beans the constructor takes; bound as a map here as well, they would replace
// them with whatever Micronaut's map conversion makes of the nested properties.
@ConfigurationProperties(value = LodestarLoadBalancerConfiguration.PREFIX, excludes = "services")
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarLoadBalancerConfiguration.ENABLED, notEquals = "false")
public class LodestarLoadBalancerConfiguration extends LoadBalancerSettings {
    /** The prefix of the load-balancer properties. */
    public static final String PREFIX = LodestarConfiguration.PREFIX + ".loadbalancer";
    /** {@code false} leaves Micronaut's own round robin over the discovery client. */
    public static final String ENABLED = PREFIX + ".enabled";

    /** @param services the {@code services.<id>.*} settings, one bean per service id */
    public LodestarLoadBalancerConfiguration(List<LodestarServiceLoadBalancerConfiguration> services) {
        services.forEach(service -> getServices().put(service.getServiceId(), service));
    }

    /** @return the canary split, bound from {@code canary.*} in place */
    @Override
    @ConfigurationBuilder(configurationPrefix = "canary")
    public Canary getCanary() {
        return super.getCanary();
    }

    /**
     * @param zone the preferred zone
     * @deprecated the Micronaut module's former name of {@code prefer-zone}; use {@code prefer-zone}, as the Spring
     *     starter does
     */
    @Deprecated
    public void setZone(String zone) {
        setPreferZone(zone);
    }
}
