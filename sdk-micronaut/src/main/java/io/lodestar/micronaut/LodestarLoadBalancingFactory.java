package io.lodestar.micronaut;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.discovery.DiscoveryClient;
import io.micronaut.http.client.loadbalance.DiscoveryClientLoadBalancerFactory;

/** The load-balancing concern, when the application has Micronaut's HTTP client. */
@Factory
@Requires(classes = DiscoveryClientLoadBalancerFactory.class)
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarLoadBalancerConfiguration.ENABLED, notEquals = "false")
class LodestarLoadBalancingFactory {

    // @Context: created with the application context, so that a bad lodestar.loadbalancer.* property stops the
    // start-up instead of the first call.
    @Context
    @Replaces(DiscoveryClientLoadBalancerFactory.class)
    DiscoveryClientLoadBalancerFactory lodestarLoadBalancerFactory(
            DiscoveryClient discoveryClient, LodestarClient client, LodestarLoadBalancerConfiguration settings) {
        try {
            settings.validate();
        } catch (InvalidArgumentException e) {
            throw new ConfigurationException(LodestarFactory.describe(e,
                    property -> LodestarLoadBalancerConfiguration.PREFIX + "." + property), e);
        }
        return new LodestarLoadBalancerFactory(discoveryClient, client.discovery().async(), settings::toLoadBalancer);
    }
}
