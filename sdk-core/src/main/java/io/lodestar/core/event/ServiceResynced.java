package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceSnapshot;

/**
 * The view re-read a service from Redis (after a revision gap, a reconnect or a reconcile that found a
 * difference) instead of applying events one by one; listeners get the whole new state. Events in between may
 * have been folded into this one.
 *
 * @param serviceId the service
 * @param revision  the revision that was read
 * @param snapshot  the service's instances at that revision
 */
public record ServiceResynced(String serviceId, long revision, ServiceSnapshot snapshot) implements ServiceEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public ServiceResynced {
        Validation.collector()
                .notNull("serviceId", serviceId)
                .notNull("snapshot", snapshot)
                .throwIfInvalid();
    }
}
