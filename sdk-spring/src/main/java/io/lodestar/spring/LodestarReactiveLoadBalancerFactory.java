package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.loadbalancer.NoInstanceAvailableException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.DefaultResponse;
import org.springframework.cloud.client.loadbalancer.EmptyResponse;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClientsProperties;
import org.springframework.cloud.client.loadbalancer.LoadBalancerProperties;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import reactor.core.publisher.Mono;

import java.util.Map;

/**
 * Spring Cloud's {@link ReactiveLoadBalancer.Factory}, which {@code @LoadBalanced} {@code WebClient}s call: the
 * service's Lodestar balancer over the view's {@linkplain io.lodestar.core.ServiceDiscovery#async() non-blocking}
 * reads, so a choice never blocks an event loop. No instance to choose is an {@link EmptyResponse}, which Spring Cloud
 * turns into a 503.
 */
class LodestarReactiveLoadBalancerFactory implements ReactiveLoadBalancer.Factory<ServiceInstance> {
    private final LodestarClient lodestar;
    private final LodestarBalancers balancers;
    private final ObjectProvider<LoadBalancerClientsProperties> properties;

    LodestarReactiveLoadBalancerFactory(LodestarClient lodestar, LodestarBalancers balancers,
                                        ObjectProvider<LoadBalancerClientsProperties> properties) {
        this.lodestar = lodestar;
        this.balancers = balancers;
        this.properties = properties;
    }

    @Override
    public ReactiveLoadBalancer<ServiceInstance> getInstance(String serviceId) {
        return request -> Mono.fromCompletionStage(() -> lodestar.discovery().async().getInstances(serviceId))
                .map(instances -> {
                    try {
                        return (Response<ServiceInstance>) new DefaultResponse(new LodestarServiceInstance(
                                balancers.forService(serviceId).choose(instances,
                                        LodestarBalancers.requestContext(request.getContext()))));
                    } catch (NoInstanceAvailableException e) {
                        return new EmptyResponse();
                    }
                });
    }

    @Override
    public <X> X getInstance(String name, Class<?> clazz, Class<?>... generics) {
        return null;
    }

    /** Spring Cloud's own per-client settings (hints, sticky sessions) still apply to the exchange. */
    @Override
    public LoadBalancerProperties getProperties(String serviceId) {
        LoadBalancerClientsProperties clients = properties.getIfAvailable(LoadBalancerClientsProperties::new);
        return clients.getClients().getOrDefault(serviceId, clients);
    }

    /** Lodestar has no per-service child contexts, hence no per-service beans (such as lifecycle callbacks). */
    @Override
    public <X> Map<String, X> getInstances(String name, Class<X> type) {
        return Map.of();
    }
}
