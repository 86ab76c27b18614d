package io.lodestar.spring;

import io.lodestar.core.InstanceFilter;
import io.lodestar.core.LodestarClient;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.ReactiveDiscoveryClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Spring Cloud's {@link ReactiveDiscoveryClient} over the client's {@linkplain
 * io.lodestar.core.ServiceDiscovery#async() non-blocking} view reads: it never blocks the subscribing thread. A
 * service the view holds is emitted at once; another one when it is loaded, on a Lodestar thread.
 */
public class LodestarReactiveDiscoveryClient implements ReactiveDiscoveryClient {
    private final LodestarClient lodestar;

    /** @param lodestar the client whose view is read */
    public LodestarReactiveDiscoveryClient(LodestarClient lodestar) {
        this.lodestar = lodestar;
    }

    @Override
    public String description() {
        return "Lodestar reactive discovery client (namespace " + lodestar.namespace().name() + ")";
    }

    /** Errors with the Lodestar exception of the read (invalid id, Redis unavailable). */
    @Override
    public Flux<ServiceInstance> getInstances(String serviceId) {
        return Mono.fromCompletionStage(() -> lodestar.discovery().async().getInstances(serviceId, InstanceFilter.UP))
                .flatMapIterable(instances -> instances)
                .map(LodestarServiceInstance::new);
    }

    @Override
    public Flux<String> getServices() {
        return Mono.fromCompletionStage(() -> lodestar.discovery().async().getServices())
                .flatMapIterable(services -> services.stream().sorted().toList());
    }
}
