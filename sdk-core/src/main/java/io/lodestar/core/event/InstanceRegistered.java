package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceInstance;

/**
 * An instance joined a service (first registration, or again after it had expired or been deregistered).
 *
 * @param serviceId the service
 * @param revision  the service revision of this change
 * @param instance  the instance as registered
 */
public record InstanceRegistered(String serviceId, long revision, ServiceInstance instance) implements ServiceEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public InstanceRegistered {
        Validation.collector()
                .notNull("serviceId", serviceId)
                .notNull("instance", instance)
                .throwIfInvalid();
    }
}
