package io.lodestar.core.event;

/**
 * An ephemeral instance was not renewed in time and was removed by the expiry sweep.
 *
 * @param serviceId  the service
 * @param revision   the service revision of this change
 * @param instanceId the instance that expired
 */
public record InstanceExpired(String serviceId, long revision, String instanceId) implements ServiceEvent {
}
