package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
/**
 * An instance left its service on request.
 *
 * @param serviceId  the service
 * @param revision   the service revision of this change
 * @param instanceId the instance that left
 */
public record InstanceDeregistered(String serviceId, long revision, String instanceId) implements ServiceEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public InstanceDeregistered {
        Validation.collector()
                .notNull("serviceId", serviceId)
                .notNull("instanceId", instanceId)
                .throwIfInvalid();
    }
}
