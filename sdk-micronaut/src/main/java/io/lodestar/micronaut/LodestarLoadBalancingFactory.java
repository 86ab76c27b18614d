package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.discovery.DiscoveryClient;
import io.micronaut.http.client.loadbalance.DiscoveryClientLoadBalancerFactory;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The load-balancing concern, when the application has Micronaut's HTTP client. */
@Factory
@Requires(classes = DiscoveryClientLoadBalancerFactory.class)
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarLoadBalancerConfiguration.ENABLED, notEquals = "false")
class LodestarLoadBalancingFactory {

    @Singleton
    @Replaces(DiscoveryClientLoadBalancerFactory.class)
    DiscoveryClientLoadBalancerFactory lodestarLoadBalancerFactory(
            DiscoveryClient discoveryClient, LodestarClient client, LodestarLoadBalancerConfiguration defaults,
            List<LodestarServiceLoadBalancerConfiguration> services) {
        Map<String, LodestarServiceLoadBalancerConfiguration> overrides = services.stream()
                .collect(Collectors.toMap(LodestarServiceLoadBalancerConfiguration::getServiceId, s -> s));
        Function<String, LoadBalancer> balancers = serviceId -> balancer(serviceId, defaults, overrides.get(serviceId));
        return new LodestarLoadBalancerFactory(discoveryClient, client.discovery().async(), balancers);
    }

    /**
     * @throws io.lodestar.core.InvalidArgumentException naming the invalid setting
     */
    static LoadBalancer balancer(String serviceId, LodestarLoadBalancerConfiguration defaults,
                                 LodestarServiceLoadBalancerConfiguration override) {
        boolean overridden = override != null;
        LoadBalancers.Builder builder = LoadBalancers.builder(
                overridden && override.getStrategy() != null ? override.getStrategy() : defaults.getStrategy())
                .serviceId(serviceId);
        String zone = overridden && override.getZone() != null ? override.getZone() : defaults.getZone();
        if (zone != null) {
            builder.selector(Selectors.zonePreference(zone));
        }
        if (defaults.getSeed() != null) {
            builder.seed(defaults.getSeed());
        }
        return builder.build();
    }
}
