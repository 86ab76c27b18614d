package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceInstance;

/**
 * An instance that stays registered changed: metadata, status, weight, address or TTL.
 *
 * @param serviceId the service
 * @param revision  the service revision of this change
 * @param previous  the instance before the change, when the view knew it ({@code null} otherwise)
 * @param instance  the instance after the change
 */
public record InstanceUpdated(String serviceId, long revision, ServiceInstance previous, ServiceInstance instance)
        implements ServiceEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public InstanceUpdated {
        Validation.collector()
                .notNull("serviceId", serviceId)
                .notNull("instance", instance)
                .throwIfInvalid();
    }
}
