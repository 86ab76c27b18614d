package io.lodestar.redis;

import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.ServicesListener;
import io.lodestar.core.Subscription;
import io.lodestar.core.Validation;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Discovery that reads Redis on every call: for tools, and as the baseline the benchmarks compare the view with.
 * Subscriptions need PubSub, so they are served by the client's view.
 */
final class DirectServiceDiscovery implements ServiceDiscovery {
    private final RegistryReads reads;
    private final RedisBackend backend;
    private final ServiceDiscovery view;

    DirectServiceDiscovery(RegistryReads reads, RedisBackend backend, ServiceDiscovery view) {
        this.reads = reads;
        this.backend = backend;
        this.view = view;
    }

    @Override
    public Set<String> getServices() {
        return Await.join(reads.services(), "list services", backend).value();
    }

    @Override
    public List<ServiceInstance> getInstances(String serviceId) {
        return getSnapshot(serviceId).instances();
    }

    @Override
    public Optional<ServiceInstance> getInstance(String serviceId, String instanceId) {
        Validation.requireInstanceId(instanceId);
        return getSnapshot(serviceId).instances().stream()
                .filter(instance -> instance.instanceId().equals(instanceId)).findFirst();
    }

    @Override
    public ServiceSnapshot getSnapshot(String serviceId) {
        Validation.requireServiceId(serviceId);
        return Await.join(reads.service(serviceId, true), "read service '" + serviceId + "'", backend);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener) {
        return view.subscribe(serviceId, listener);
    }

    @Override
    public Subscription subscribeServices(ServicesListener listener) {
        return view.subscribeServices(listener);
    }

    @Override
    public ViewStatus status() {
        return new ViewStatus(false, Duration.ZERO, Instant.now(), false);
    }
}
