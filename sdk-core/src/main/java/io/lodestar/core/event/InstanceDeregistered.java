package io.lodestar.core.event;

/**
 * An instance left its service on request.
 *
 * @param serviceId  the service
 * @param revision   the service revision of this change
 * @param instanceId the instance that left
 */
public record InstanceDeregistered(String serviceId, long revision, String instanceId) implements ServiceEvent {
}
