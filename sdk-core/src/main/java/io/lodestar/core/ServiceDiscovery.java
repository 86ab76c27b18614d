package io.lodestar.core;

import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Reads the registry. Two implementations exist: the <em>local view</em> ({@link LodestarClient#discovery()}),
 * kept current by Redis PubSub, where a read of a held service is a lock-free map lookup; and the <em>direct</em>
 * one ({@link LodestarClient#directDiscovery()}), which asks Redis on every call.
 *
 * <p>The first read of a service by a view subscribes to it and loads it (a network call that can throw
 * {@link UnavailableException}); later reads are local. While Redis is unreachable a view keeps answering from
 * the last known data, and {@link #status()} says it is stale. A thread that must never block (a request thread,
 * an event loop) uses {@link #async()}, or {@link #preload(Collection) preloads} the services it calls at start-up.
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
     * @param serviceId the service
     * @param filter    which instances to return, e.g. {@link InstanceFilter#UP} for the ones to send traffic to
     * @return the instances the filter keeps, ordered by instance id; from a view, the same list object until the
     *     service changes
     */
    List<ServiceInstance> getInstances(String serviceId, InstanceFilter filter);

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
     * Like {@link #subscribe(String, ServiceListener)}; with {@link Initial#DELIVER} the listener first gets the
     * current state as a {@link io.lodestar.core.event.ServiceResynced}, then every later change exactly once.
     *
     * @param serviceId the service
     * @param listener  called on a Lodestar thread
     * @param initial   whether to deliver the current state first
     * @return the subscription; close it to stop
     */
    Subscription subscribe(String serviceId, ServiceListener listener, Initial initial);

    /**
     * Like {@link #subscribe(String, ServiceListener, Initial)}, calling the listener on the given executor
     * (still one event at a time, in order) instead of a Lodestar thread, as Nacos' {@code Listener.getExecutor()}.
     *
     * @param serviceId the service
     * @param listener  the listener
     * @param initial   whether to deliver the current state first
     * @param executor  where the listener runs; events it rejects are logged and dropped
     * @return the subscription; close it to stop
     */
    Subscription subscribe(String serviceId, ServiceListener listener, Initial initial, Executor executor);

    /**
     * Calls the listener when services appear in or disappear from the namespace. Returns once the listener is
     * attached, like {@link #subscribe(String, ServiceListener)}.
     *
     * @param listener called on a Lodestar thread
     * @return the subscription; close it to stop
     */
    Subscription subscribeServices(ServicesListener listener);

    /**
     * What a local view holds now, for monitoring (an actuator endpoint): no load, no Redis call, and not counted
     * as a read, so a service only looked at this way still leaves the view when idle.
     *
     * @return the snapshots held, by service id in id order; empty for a direct reader (which holds nothing)
     */
    default SortedMap<String, ServiceSnapshot> heldSnapshots() {
        return Collections.emptySortedMap();
    }

    /** @return how current this view is (a direct reader is never stale) */
    ViewStatus status();

    /**
     * Loads the given services into the view (subscribes and reads them) so that the first request that needs
     * them reads locally. Does not block: the stage completes once all are loaded, on a Lodestar thread. A service
     * that cannot be loaded now (Redis unreachable) keeps being retried while it is held. A direct reader has
     * nothing to preload and completes at once.
     *
     * @param serviceIds the services
     * @return completes when every service is loaded, or with the first failure (also for an invalid id)
     */
    CompletionStage<Void> preload(Collection<String> serviceIds);

    /** @return the same reads, non-blocking: a held service completes at once, others when loaded */
    AsyncServiceDiscovery async();
}
