package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.NoInstanceAvailableException;
import io.lodestar.loadbalancer.Selectors;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerRequest;
import org.springframework.cloud.client.loadbalancer.LoadBalancerUriTools;
import org.springframework.cloud.client.loadbalancer.Request;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Spring Cloud's {@link LoadBalancerClient}, which {@code @LoadBalanced} {@code RestClient}s and
 * {@code RestTemplate}s call: one Lodestar {@link LoadBalancer} per service (they cache their preparation per
 * instance list) choosing among the view's instances, which the view replaces as soon as Redis announces a change.
 * The first call for a service loads it into the view (bounded by the command timeout); later ones read locally.
 */
class LodestarLoadBalancerClient implements LoadBalancerClient {
    private final LodestarClient lodestar;
    private final LoadBalancers.Builder balancers;
    private final Map<String, LoadBalancer> byService = new ConcurrentHashMap<>();

    /**
     * @throws InvalidLodestarPropertiesException naming each bad {@code lodestar.loadbalancer.*} property
     */
    LodestarLoadBalancerClient(LodestarClient lodestar, LodestarProperties.Balancing properties) {
        this.lodestar = lodestar;
        this.balancers = LoadBalancers.builder(properties.getStrategy());
        if (properties.getPreferZone() != null) {
            balancers.selector(Selectors.zonePreference(properties.getPreferZone()));
        }
        if (properties.getSlowStart() != null) {
            balancers.slowStart(properties.getSlowStart());
        }
        if (properties.getSeed() != null) {
            balancers.seed(properties.getSeed());
        }
        try {
            balancers.build(); // at start-up, so that a bad property fails the start, not the first call
        } catch (InvalidArgumentException e) {
            throw InvalidLodestarPropertiesException.of(LodestarProperties.PREFIX + ".loadbalancer", e);
        }
    }

    /** @return the chosen instance, or null when the service has none to choose (Spring Cloud's contract) */
    @Override
    public ServiceInstance choose(String serviceId) {
        LoadBalancer balancer = byService.computeIfAbsent(serviceId, this::newBalancer);
        try {
            return new LodestarServiceInstance(balancer.choose(lodestar.discovery().getInstances(serviceId)));
        } catch (NoInstanceAvailableException e) {
            return null;
        }
    }

    @Override
    public <T> ServiceInstance choose(String serviceId, Request<T> request) {
        return choose(serviceId);
    }

    @Override
    public <T> T execute(String serviceId, LoadBalancerRequest<T> request) throws IOException {
        ServiceInstance instance = choose(serviceId);
        if (instance == null) {
            throw new IllegalStateException("No instances available for " + serviceId);
        }
        return execute(serviceId, instance, request);
    }

    @Override
    public <T> T execute(String serviceId, ServiceInstance instance, LoadBalancerRequest<T> request)
            throws IOException {
        try {
            return request.apply(instance);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public URI reconstructURI(ServiceInstance instance, URI original) {
        return LoadBalancerUriTools.reconstructURI(instance, original);
    }

    // The builder is shared and serviceId() sets a field on it: build one balancer at a time.
    private synchronized LoadBalancer newBalancer(String serviceId) {
        return balancers.serviceId(serviceId).build();
    }
}
