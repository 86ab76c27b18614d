package io.lodestar.micronaut;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.RequestContext;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.discovery.DiscoveryClient;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.loadbalance.DiscoveryClientLoadBalancerFactory;

import java.util.function.Function;

/**
 * The load balancer factory of Micronaut's HTTP client, replaced: {@code @Client(id = "orders")} chooses with a
 * Lodestar {@link LoadBalancer} (weights, health, zone preference) over the service's view, instead of a round
 * robin over the discovery client's list. One balancer per client, so its prepared choice is reused until the
 * service changes.
 */
final class LodestarLoadBalancerFactory extends DiscoveryClientLoadBalancerFactory {
    private final AsyncServiceDiscovery discovery;
    private final Function<String, LoadBalancer> balancers;

    LodestarLoadBalancerFactory(DiscoveryClient discoveryClient, AsyncServiceDiscovery discovery,
                                Function<String, LoadBalancer> balancers) {
        super(discoveryClient);
        this.discovery = discovery;
        this.balancers = balancers;
    }

    /**
     * @throws io.lodestar.core.InvalidArgumentException when the service's settings are invalid, at client creation
     */
    @Override
    @SuppressWarnings("checkstyle:FullyQualifiedName") // Micronaut's LoadBalancer beside ours
    public io.micronaut.http.client.LoadBalancer create(String serviceId) {
        LoadBalancer balancer = balancers.apply(serviceId);
        // Every status: the balancer filters health itself, and counts what it filtered for its error message.
        return discriminator -> Publishers.fromCompletableFuture(() -> discovery.getInstances(serviceId)
                .thenApply(instances -> LodestarDiscoveryClient.toMicronaut(
                        balancer.choose(instances, requestContext(discriminator))))
                .toCompletableFuture());
    }

    /**
     * The canary hint's source: the headers of a request given as the discriminator. Micronaut's own client passes
     * null ({@code DefaultHttpClient.getLoadBalancerDiscriminator()}), so only a caller that selects with the
     * request (or a client that overrides that method) gets hinted routing.
     */
    static RequestContext requestContext(Object discriminator) {
        return discriminator instanceof HttpRequest<?> request ? request.getHeaders()::get : RequestContext.NONE;
    }
}
