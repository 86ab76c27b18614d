package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
/**
 * An instance left its service on request: its owner's (or another client's) deregister, or an operator's evict.
 *
 * <p>An evict is this same event with {@link #evicted()} true, not an event type of its own: code that removes an
 * instance on {@code InstanceDeregistered} (a switch over the sealed {@link ServiceEvent} types, a
 * {@code ServiceEventAdapter#onDeregistered}) keeps removing evicted ones too, and only code that cares asks.
 *
 * @param serviceId  the service
 * @param revision   the service revision of this change
 * @param instanceId the instance that left
 * @param evicted    true when an operator evicted it ({@code ServiceRegistry#evict}), false when it was
 *                   deregistered; false too for a removal written by an earlier
 *                   version, which did not say
 */
public record InstanceDeregistered(String serviceId, long revision, String instanceId, boolean evicted)
        implements ServiceEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public InstanceDeregistered {
        Validation.collector()
                .notNull("serviceId", serviceId)
                .notNull("instanceId", instanceId)
                .throwIfInvalid();
    }

    /**
     * A deregistration ({@link #evicted()} false), as this event was made before it told evicts apart.
     *
     * @param serviceId  the service
     * @param revision   the service revision of this change
     * @param instanceId the instance that left
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public InstanceDeregistered(String serviceId, long revision, String instanceId) {
        this(serviceId, revision, instanceId, false);
    }
}
