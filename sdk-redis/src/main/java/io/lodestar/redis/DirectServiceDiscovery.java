package io.lodestar.redis;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.core.Initial;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.ServicesListener;
import io.lodestar.core.Subscription;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.model.ServiceSnapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Discovery that reads Redis on every call: for tools, and as the baseline the benchmarks compare the view with.
 * Subscriptions need PubSub, so they are served by the client's view.
 */
final class DirectServiceDiscovery extends SnapshotDiscovery {
    private final RegistryReads reads;
    private final RedisBackend backend;
    private final ServiceDiscovery view;
    private final AsyncServiceDiscovery async;

    DirectServiceDiscovery(RegistryReads reads, RedisBackend backend, ServiceDiscovery view, Executor listenerPool) {
        this.reads = reads;
        this.backend = backend;
        this.view = view;
        this.async = new AsyncDiscovery(serviceId -> reads.service(serviceId, true),
                () -> reads.services().thenApply(SyncedView.Versioned::value),
                AsyncDiscovery::keep, backend, listenerPool);
    }

    @Override
    public Set<String> getServices() {
        return Await.join(reads.services(), "list services", backend).value();
    }

    @Override
    public ServiceSnapshot getSnapshot(String serviceId) {
        Validation.requireServiceId(serviceId);
        return Await.join(reads.service(serviceId, true), () -> "read service '" + serviceId + "'", backend);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener) {
        return view.subscribe(serviceId, listener);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener, Initial initial) {
        return view.subscribe(serviceId, listener, initial);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener, Initial initial, Executor executor) {
        return view.subscribe(serviceId, listener, initial, executor);
    }

    @Override
    public Subscription subscribeServices(ServicesListener listener) {
        return view.subscribeServices(listener);
    }

    @Override
    public ViewStatus status() {
        return new ViewStatus(false, Duration.ZERO, Instant.now(), false);
    }

    /** Nothing to preload: every read asks Redis. */
    @Override
    public CompletionStage<Void> preload(Collection<String> serviceIds) {
        try {
            Validation.collector().serviceIds("serviceIds", serviceIds).throwIfInvalid();
            return CompletableFuture.completedFuture(null);
        } catch (InvalidArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public AsyncServiceDiscovery async() {
        return async;
    }
}
