package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
/**
 * An ephemeral instance was not renewed in time and was removed by the expiry sweep.
 *
 * @param serviceId  the service
 * @param revision   the service revision of this change
 * @param instanceId the instance that expired
 */
public record InstanceExpired(String serviceId, long revision, String instanceId) implements ServiceEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public InstanceExpired {
        Validation.collector()
                .notNull("serviceId", serviceId)
                .notNull("instanceId", instanceId)
                .throwIfInvalid();
    }
}
