package io.lodestar.redis;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.core.InstanceFilter;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The async reads of a discovery, built from its two primitives (a snapshot and the set of services), so the view
 * and the direct reader answer alike. Every stage is published through {@link Calls}.
 */
final class AsyncDiscovery implements AsyncServiceDiscovery {
    private final Function<String, CompletionStage<ServiceSnapshot>> snapshot;
    private final Supplier<CompletionStage<Set<String>>> services;
    private final BiFunction<ServiceSnapshot, InstanceFilter, List<ServiceInstance>> filter;
    private final Calls calls;

    /**
     * @param snapshot a service's snapshot, for a valid id
     * @param services the namespace's services
     * @param filter   applies an instance filter to a snapshot (a view caches the result per snapshot)
     */
    AsyncDiscovery(Function<String, CompletionStage<ServiceSnapshot>> snapshot,
                   Supplier<CompletionStage<Set<String>>> services,
                   BiFunction<ServiceSnapshot, InstanceFilter, List<ServiceInstance>> filter, RedisBackend backend,
                   Executor executor) {
        this.snapshot = snapshot;
        this.services = services;
        this.filter = filter;
        this.calls = new Calls(backend, executor);
    }

    @Override
    public CompletionStage<Set<String>> getServices() {
        return publish(services::get, "list services");
    }

    @Override
    public CompletionStage<List<ServiceInstance>> getInstances(String serviceId) {
        return getInstances(serviceId, InstanceFilter.ALL);
    }

    @Override
    public CompletionStage<List<ServiceInstance>> getInstances(String serviceId, InstanceFilter instanceFilter) {
        return publish(() -> {
            Validation.collector().serviceId("serviceId", serviceId).notNull("filter", instanceFilter)
                    .throwIfInvalid();
            return snapshot.apply(serviceId).thenApply(read -> filter.apply(read, instanceFilter));
        }, "read service '" + serviceId + "'");
    }

    @Override
    public CompletionStage<Optional<ServiceInstance>> getInstance(String serviceId, String instanceId) {
        return publish(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .throwIfInvalid();
            return snapshot.apply(serviceId).thenApply(read -> find(read, instanceId));
        }, "read service '" + serviceId + "'");
    }

    @Override
    public CompletionStage<ServiceSnapshot> getSnapshot(String serviceId) {
        return publish(() -> snapshot.apply(Validation.requireServiceId(serviceId)),
                "read service '" + serviceId + "'");
    }

    /** The instances of a snapshot the filter keeps: the snapshot's own list when it keeps them all. */
    static List<ServiceInstance> keep(ServiceSnapshot snapshot, InstanceFilter filter) {
        if (filter == InstanceFilter.ALL) {
            return snapshot.instances();
        }
        List<ServiceInstance> kept = snapshot.instances().stream().filter(filter::test).toList();
        return kept.size() == snapshot.instances().size() ? snapshot.instances() : kept;
    }

    /** The instance with this id, if the snapshot holds it (instances are ordered by id). */
    static Optional<ServiceInstance> find(ServiceSnapshot snapshot, String instanceId) {
        for (ServiceInstance instance : snapshot.instances()) {
            if (instance.instanceId().equals(instanceId)) {
                return Optional.of(instance);
            }
        }
        return Optional.empty();
    }

    private <T> CompletionStage<T> publish(Supplier<CompletionStage<T>> read, String operation) {
        return calls.start(() -> operation, read).published();
    }
}
