package io.lodestar.core;

import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Writes to the service registry. Every write is one atomic Redis script that bumps the service's revision and
 * announces the change; the same client's views see the change as soon as the call returns.
 *
 * <p>All methods throw {@link InvalidArgumentException} for bad input, {@link UnavailableException} when Redis
 * cannot be reached (fast, not after a long wait) and {@link ScriptException} when Redis refuses the script.
 */
public interface ServiceRegistry {
    /**
     * Registers (or re-registers, replacing) an instance. An ephemeral one is then renewed by this client until
     * the registration is closed. The lease renews this registration only: if another client (or another process)
     * registers the same instance id later, that registration is its own to renew, and this client stops renewing,
     * logs it once and tells its {@linkplain #addLeaseListener lease listeners}.
     *
     * @param instance the instance
     * @return the registration; close it to deregister
     */
    Registration register(ServiceInstance instance);

    /**
     * Extends an ephemeral instance's deadline by the TTL it was registered with, whichever client registered it.
     * Renewals publish no event. If the instance expired meanwhile and this client registered it, it is registered
     * again; if it was deregistered or {@linkplain #evict evicted} by another client, it stays removed and this
     * client stops renewing it.
     *
     * @param serviceId  the service
     * @param instanceId the instance
     * @throws NotFoundException when the instance is not registered and this client does not own it, or when it
     *     was deregistered or evicted by another client
     */
    void renew(String serviceId, String instanceId);

    /**
     * Removes an instance and stops renewing it. The removal sticks: a {@link #register} racing it cannot bring the
     * instance back through this client's renewals, and if another client owns the instance, that client's
     * renewals stop instead of registering it again (as with {@link #evict}).
     *
     * @param serviceId  the service
     * @param instanceId the instance
     * @return true if it was registered
     */
    boolean deregister(String serviceId, String instanceId);

    /**
     * An operator action: removes an instance that another client registered (a hung process, a bad deploy) and
     * keeps it removed. Its owner's next renewal finds that it was evicted and stops renewing it (logging why),
     * instead of registering it again as it does after an expiry; the owner can still {@link #register} it anew.
     * Listeners see the removal as an {@link io.lodestar.core.event.InstanceDeregistered} whose
     * {@link io.lodestar.core.event.InstanceDeregistered#evicted() evicted()} is true.
     *
     * @param serviceId  the service
     * @param instanceId the instance
     * @return true if it was registered
     */
    boolean evict(String serviceId, String instanceId);

    /**
     * Replaces an instance's whole metadata.
     *
     * @param serviceId  the service
     * @param instanceId the instance
     * @param metadata   the new metadata (empty to clear)
     * @return the instance after the change
     * @throws NotFoundException when the instance is not registered
     */
    ServiceInstance setMetadata(String serviceId, String instanceId, Map<String, String> metadata);

    /**
     * Adds, replaces and removes some metadata entries, atomically.
     *
     * @param serviceId  the service
     * @param instanceId the instance
     * @param put        entries to add or replace
     * @param remove     keys to remove
     * @return the instance after the change
     * @throws NotFoundException when the instance is not registered
     */
    ServiceInstance updateMetadata(String serviceId, String instanceId, Map<String, String> put, Set<String> remove);

    /**
     * Changes an instance's status (e.g. take it {@link InstanceStatus#OUT_OF_SERVICE} before a shutdown).
     *
     * @param serviceId  the service
     * @param instanceId the instance
     * @param status     the new status
     * @return the instance after the change
     * @throws NotFoundException when the instance is not registered
     */
    ServiceInstance setStatus(String serviceId, String instanceId, InstanceStatus status);

    /**
     * Changes an instance's weight (how often weighted load balancing picks it; 0 = never). Every view hears it as
     * an {@link io.lodestar.core.event.InstanceUpdated}. As with a metadata change, the owner's lease keeps renewing
     * the instance; if the owner has to register it again (Redis lost it, or it expired while the owner was
     * paused), it registers the weight it knows: its own registration's, unless the change was made through the
     * owner's own client.
     *
     * <p>A default method so that implementations written before it still compile; Lodestar's own implements it.
     *
     * @param serviceId  the service
     * @param instanceId the instance
     * @param weight     the new weight, between {@code 0} and {@code 10000}
     * @return the instance after the change
     * @throws NotFoundException when the instance is not registered
     * @throws InvalidArgumentException naming an invalid id or a weight outside the range
     */
    default ServiceInstance setWeight(String serviceId, String instanceId, int weight) {
        throw new UnsupportedOperationException("ServiceRegistry.setWeight is not supported by this implementation");
    }

    /**
     * How long each ephemeral instance of a service has left before it expires unless renewed, read from Redis
     * now and measured by Redis' clock (so the caller's clock does not matter). Renewals move deadlines without an
     * event, so no view knows this: it is always a read from Redis. Persistent instances are absent; an instance
     * past its deadline that the sweep has not removed yet maps to {@link Duration#ZERO}.
     *
     * @return instance id to time left, for the ephemeral instances of the service (empty when it has none)
     * @throws InvalidArgumentException if {@code serviceId} breaks the id rules
     * @throws UnavailableException if Redis cannot be reached
     */
    Map<String, Duration> timeToLive(String serviceId);

    /**
     * An operator action: removes what a service that is gone for good left in Redis (its revision counter,
     * digest and incarnation; tombstones that still guard against renewals are kept until they run out), so that
     * short-lived service names do not accumulate keys. Views that hold the service show it empty, as before; if
     * it is registered again later, it starts over at revision 1 (views notice the new incarnation and re-read it).
     *
     * @param serviceId the service
     * @return true if something was removed, false if the service left nothing behind
     * @throws ConflictException when the service still has instances (an expired one counts until the sweep
     *     removes it); {@link ConflictException#id()} is the service, {@link ConflictException#currentVersion()}
     *     its revision. Nothing is removed then.
     */
    boolean purge(String serviceId);

    /**
     * Tells the listener when this client stops renewing an instance it registered because another client removed
     * it or registered the same instance id again (see {@link LeaseListener.Cause}).
     *
     * @param listener the listener
     * @return closes to stop the calls
     */
    Subscription addLeaseListener(LeaseListener listener);

    /** @return the same operations, non-blocking */
    AsyncServiceRegistry async();
}
