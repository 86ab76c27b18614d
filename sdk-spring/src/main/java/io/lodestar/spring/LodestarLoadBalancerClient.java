package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.loadbalancer.NoInstanceAvailableException;
import io.lodestar.loadbalancer.RequestContext;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.HttpRequestLoadBalancerRequest;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerRequest;
import org.springframework.cloud.client.loadbalancer.LoadBalancerUriTools;
import org.springframework.cloud.client.loadbalancer.Request;

import java.io.IOException;
import java.net.URI;

/**
 * Spring Cloud's {@link LoadBalancerClient}, which {@code @LoadBalanced} {@code RestClient}s and
 * {@code RestTemplate}s call: the service's Lodestar balancer choosing among the view's instances, which the view
 * replaces as soon as Redis announces a change. The first call for a service loads it into the view (bounded by the
 * command timeout); later ones read locally.
 */
class LodestarLoadBalancerClient implements LoadBalancerClient {
    private final LodestarClient lodestar;
    private final LodestarBalancers balancers;

    LodestarLoadBalancerClient(LodestarClient lodestar, LodestarBalancers balancers) {
        this.lodestar = lodestar;
        this.balancers = balancers;
    }

    /** @return the chosen instance, or null when the service has none to choose (Spring Cloud's contract) */
    @Override
    public ServiceInstance choose(String serviceId) {
        return choose(serviceId, RequestContext.NONE);
    }

    /** Like {@link #choose(String)}, with the request's headers for the canary hint. */
    @Override
    public <T> ServiceInstance choose(String serviceId, Request<T> request) {
        return choose(serviceId, LodestarBalancers.requestContext(request == null ? null : request.getContext()));
    }

    private ServiceInstance choose(String serviceId, RequestContext context) {
        try {
            return new LodestarServiceInstance(
                    balancers.forService(serviceId).choose(lodestar.discovery().getInstances(serviceId), context));
        } catch (NoInstanceAvailableException e) {
            return null;
        }
    }

    @Override
    public <T> T execute(String serviceId, LoadBalancerRequest<T> request) throws IOException {
        ServiceInstance instance = choose(serviceId, request instanceof HttpRequestLoadBalancerRequest<?> http
                ? LodestarBalancers.requestContext(http.getHttpRequest()) : RequestContext.NONE);
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
}
