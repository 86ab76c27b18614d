package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.discovery.DiscoveryClient;
import io.micronaut.http.client.loadbalance.DiscoveryClientLoadBalancerFactory;
import jakarta.inject.Singleton;

/** The load-balancing concern, when the application has Micronaut's HTTP client. */
@Factory
@Requires(classes = DiscoveryClientLoadBalancerFactory.class)
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarLoadBalancerConfiguration.ENABLED, notEquals = "false")
class LodestarLoadBalancingFactory {

    @Singleton
    @Replaces(DiscoveryClientLoadBalancerFactory.class)
    DiscoveryClientLoadBalancerFactory lodestarLoadBalancerFactory(DiscoveryClient discoveryClient,
                                                                  LodestarClient client,
                                                                  LodestarLoadBalancerConfiguration configuration) {
        LoadBalancers.Builder balancers = LoadBalancers.builder(configuration.getStrategy());
        if (configuration.getZone() != null) {
            balancers.selector(Selectors.zonePreference(configuration.getZone()));
        }
        if (configuration.getSeed() != null) {
            balancers.seed(configuration.getSeed());
        }
        return new LodestarLoadBalancerFactory(discoveryClient, client.discovery().async(), balancers);
    }
}
