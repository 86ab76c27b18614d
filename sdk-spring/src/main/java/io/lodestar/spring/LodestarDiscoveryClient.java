package io.lodestar.spring;

import io.lodestar.core.InstanceFilter;
import io.lodestar.core.LodestarClient;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;

import java.util.List;

/**
 * Spring Cloud's blocking {@link DiscoveryClient} over the client's local view: the instances that are
 * {@link InstanceFilter#UP UP}. A service the view holds is read without a network call; the first read of another
 * one loads it (bounded by the command timeout).
 */
public class LodestarDiscoveryClient implements DiscoveryClient {
    private final LodestarClient lodestar;

    /** @param lodestar the client whose view is read */
    public LodestarDiscoveryClient(LodestarClient lodestar) {
        this.lodestar = lodestar;
    }

    @Override
    public String description() {
        return "Lodestar discovery client (namespace " + lodestar.namespace().name() + ")";
    }

    /**
     * @throws io.lodestar.core.InvalidArgumentException for an invalid service id
     * @throws io.lodestar.core.UnavailableException     when the service is not in the view and Redis cannot be
     *                                                   reached
     */
    @Override
    public List<ServiceInstance> getInstances(String serviceId) {
        return lodestar.discovery().getInstances(serviceId, InstanceFilter.UP).stream()
                .<ServiceInstance>map(LodestarServiceInstance::new).toList();
    }

    @Override
    public List<String> getServices() {
        return lodestar.discovery().getServices().stream().sorted().toList();
    }
}
