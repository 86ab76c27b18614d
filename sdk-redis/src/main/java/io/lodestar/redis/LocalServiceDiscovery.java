package io.lodestar.redis;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.core.Initial;
import io.lodestar.core.InstanceFilter;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.ServicesListener;
import io.lodestar.core.Subscription;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Discovery from the local view: a read of a held service is a lock-free lookup that allocates nothing and returns
 * the same immutable list until the service changes; a filtered read too (its list is computed once per snapshot).
 */
final class LocalServiceDiscovery extends SnapshotDiscovery {
    private final SyncedView<ServiceSnapshot, ServiceEvent> services;
    private final SyncedView<Set<String>, ServicesChanged> index;
    private final Executor listenerPool;
    private final RedisBackend backend;
    private final AsyncServiceDiscovery async;
    /** Per service, its UP instances of the snapshot they were computed from. */
    private final Map<String, Filtered> upInstances = new ConcurrentHashMap<>();

    LocalServiceDiscovery(SyncedView<ServiceSnapshot, ServiceEvent> services,
                          SyncedView<Set<String>, ServicesChanged> index, Executor listenerPool,
                          RedisBackend backend) {
        this.services = services;
        this.index = index;
        this.listenerPool = listenerPool;
        this.backend = backend;
        this.async = new AsyncDiscovery(this::snapshotAsync,
                () -> index.api().loadAsync(IndexSource.TOPIC).thenApply(SyncedView.Versioned::value),
                this::filter, backend, listenerPool);
    }

    @Override
    public Set<String> getServices() {
        return index.api().get(IndexSource.TOPIC);
    }

    @Override
    public ServiceSnapshot getSnapshot(String serviceId) {
        return services.api().read(serviceId, Validation::requireServiceId);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener) {
        return subscribe(serviceId, listener, Initial.SKIP, listenerPool);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener, Initial initial) {
        return subscribe(serviceId, listener, initial, listenerPool);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener, Initial initial, Executor executor) {
        Validation.collector().serviceId("serviceId", serviceId).notNull("listener", listener)
                .notNull("initial", initial).notNull("executor", executor).throwIfInvalid();
        Consumer<SyncedView.Versioned<ServiceSnapshot>> onStart = initial == Initial.DELIVER
                ? start -> listener.onEvent(new ServiceResynced(serviceId, start.revision(), start.value()))
                : null;
        return services.api().subscribeAttached(serviceId, listener::onEvent, onStart, executor);
    }

    @Override
    public Subscription subscribeServices(ServicesListener listener) {
        Validation.requireNonNull("listener", listener);
        return index.api().subscribeAttached(IndexSource.TOPIC, listener::onChange);
    }

    @Override
    public SortedMap<String, ServiceSnapshot> heldSnapshots() {
        return services.api().peekHeld();
    }

    @Override
    public ViewStatus status() {
        return ViewReads.combined(services.api().status(), index.api().status());
    }

    @Override
    public CompletionStage<Void> preload(Collection<String> serviceIds) {
        try {
            Validation.collector().serviceIds("serviceIds", serviceIds).throwIfInvalid();
        } catch (InvalidArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        // in batches: one subscribe and a few bounded read scripts per batch of services (see SyncedView.preload)
        CompletableFuture<Void> loads;
        try {
            loads = services.preload(serviceIds);
        } catch (RuntimeException closed) {
            loads = CompletableFuture.failedFuture(closed);
        }
        return Completions.publish(loads, "preload services " + serviceIds, backend, listenerPool);
    }

    @Override
    public AsyncServiceDiscovery async() {
        return async;
    }

    private CompletionStage<ServiceSnapshot> snapshotAsync(String serviceId) {
        ServiceSnapshot held = services.api().getIfHeld(serviceId);
        return held != null ? CompletableFuture.completedFuture(held)
                : services.api().loadAsync(serviceId).thenApply(SyncedView.Versioned::value);
    }

    /**
     * The instances of a snapshot the filter keeps; for {@link InstanceFilter#UP}, computed once per snapshot and
     * the snapshot's own list when every instance is up, so the list's identity changes only with the service.
     */
    @Override
    List<ServiceInstance> filter(ServiceSnapshot snapshot, InstanceFilter filter) {
        if (filter == InstanceFilter.ALL) {
            return snapshot.instances();
        }
        Filtered cached = upInstances.get(snapshot.serviceId());
        if (cached != null && cached.snapshot == snapshot) {
            return cached.instances;
        }
        List<ServiceInstance> kept = AsyncDiscovery.keep(snapshot, filter);
        if (upInstances.size() > services.size() + 16) {
            upInstances.keySet().retainAll(services.api().held()); // forget services the view dropped
        }
        upInstances.put(snapshot.serviceId(), new Filtered(snapshot, kept));
        return kept;
    }

    private record Filtered(ServiceSnapshot snapshot, List<ServiceInstance> instances) {
    }
}
