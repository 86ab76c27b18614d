package io.lodestar.core;

import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the registry. Two implementations exist: the <em>local view</em> ({@link LodestarClient#discovery()}),
 * kept current by Redis PubSub, where a read of a held service is a lock-free map lookup; and the <em>direct</em>
 * one ({@link LodestarClient#directDiscovery()}), which asks Redis on every call.
 *
 * <p>The first read of a service by a view subscribes to it and loads it (a network call that can throw
 * {@link UnavailableException}); later reads are local. While Redis is unreachable a view keeps answering from
 * the last known data, and {@link #status()} says it is stale.
 */
public interface ServiceDiscovery {
    /** @return the services of the namespace that have at least one instance */
    Set<String> getServices();

    /**
     * @param serviceId the service
     * @return its registered instances (every status), ordered by instance id; empty when none. Never expired
     *     ones from a direct read; a view drops an expired instance within TTL + sweep interval.
     */
    List<ServiceInstance> getInstances(String serviceId);

    /**
     * @param serviceId  the service
     * @param instanceId the instance
     * @return the instance, if registered
     */
    Optional<ServiceInstance> getInstance(String serviceId, String instanceId);

    /**
     * @param serviceId the service
     * @return its instances with the revision they reflect; the same object until the service changes
     */
    ServiceSnapshot getSnapshot(String serviceId);

    /**
     * Calls the listener with every change of a service, in revision order, starting after the current state.
     * Returns once the listener is attached (bounded by the command timeout), so every write after it returns is
     * delivered; while Redis cannot be reached it returns at once and the listener starts when Redis is back.
     *
     * @param serviceId the service
     * @param listener  called on a Lodestar thread
     * @return the subscription; close it to stop
     */
    Subscription subscribe(String serviceId, ServiceListener listener);

    /**
     * Calls the listener when services appear in or disappear from the namespace. Returns once the listener is
     * attached, like {@link #subscribe(String, ServiceListener)}.
     *
     * @param listener called on a Lodestar thread
     * @return the subscription; close it to stop
     */
    Subscription subscribeServices(ServicesListener listener);

    /** @return how current this view is (a direct reader is never stale) */
    ViewStatus status();
}
