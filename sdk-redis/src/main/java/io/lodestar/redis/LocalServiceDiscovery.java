package io.lodestar.redis;

import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.ServicesListener;
import io.lodestar.core.Subscription;
import io.lodestar.core.Validation;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Discovery from the local view: a read of a held service is a lock-free lookup that allocates nothing and returns
 * the same immutable list until the service changes.
 */
final class LocalServiceDiscovery implements ServiceDiscovery {
    private final SyncedView<ServiceSnapshot, ServiceEvent> services;
    private final SyncedView<Set<String>, ServicesChanged> index;

    LocalServiceDiscovery(SyncedView<ServiceSnapshot, ServiceEvent> services,
                          SyncedView<Set<String>, ServicesChanged> index) {
        this.services = services;
        this.index = index;
    }

    @Override
    public Set<String> getServices() {
        return index.get(IndexSource.TOPIC);
    }

    @Override
    public List<ServiceInstance> getInstances(String serviceId) {
        return getSnapshot(serviceId).instances();
    }

    @Override
    public Optional<ServiceInstance> getInstance(String serviceId, String instanceId) {
        Validation.requireInstanceId(instanceId); // as the direct reader does: bad input gets the same answer
        for (ServiceInstance instance : getSnapshot(serviceId).instances()) {
            if (instance.instanceId().equals(instanceId)) {
                return Optional.of(instance);
            }
        }
        return Optional.empty();
    }

    @Override
    public ServiceSnapshot getSnapshot(String serviceId) {
        return services.read(serviceId, Validation::requireServiceId);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener) {
        Validation.collector().serviceId("serviceId", serviceId).notNull("listener", listener).throwIfInvalid();
        return services.subscribeAttached(serviceId, listener::onEvent);
    }

    @Override
    public Subscription subscribeServices(ServicesListener listener) {
        Validation.requireNonNull("listener", listener);
        return index.subscribeAttached(IndexSource.TOPIC, listener::onChange);
    }

    @Override
    public ViewStatus status() {
        return SyncedView.combined(services.status(), index.status());
    }

}
