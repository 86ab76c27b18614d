package io.lodestar.micronaut;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.discovery.DiscoveryClient;
import io.micronaut.http.client.loadbalance.DiscoveryClientLoadBalancerFactory;

/**
 * The load balancer factory of Micronaut's HTTP client, replaced: {@code @Client(id = "orders")} chooses with a
 * Lodestar {@link LoadBalancer} (weights, health, zone preference) over the service's view, instead of a round
 * robin over the discovery client's list. One balancer per client, so its prepared choice is reused until the
 * service changes.
 */
final class LodestarLoadBalancerFactory extends DiscoveryClientLoadBalancerFactory {
    private final AsyncServiceDiscovery discovery;
    private final LoadBalancers.Builder balancers;

    LodestarLoadBalancerFactory(DiscoveryClient discoveryClient, AsyncServiceDiscovery discovery,
                                LoadBalancers.Builder balancers) {
        super(discoveryClient);
        this.discovery = discovery;
        this.balancers = balancers;
    }

    /**
     * @throws io.lodestar.core.InvalidArgumentException when the settings are invalid, at client creation
     */
    @Override
    public synchronized io.micronaut.http.client.LoadBalancer create(String serviceId) { // the builder is shared
        LoadBalancer balancer = balancers.serviceId(serviceId).build();
        // Every status: the balancer filters health itself, and counts what it filtered for its error message.
        return discriminator -> Publishers.fromCompletableFuture(() -> discovery.getInstances(serviceId)
                .thenApply(instances -> LodestarDiscoveryClient.toMicronaut(balancer.choose(instances)))
                .toCompletableFuture());
    }
}
