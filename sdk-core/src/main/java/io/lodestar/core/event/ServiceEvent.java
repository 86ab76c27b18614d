package io.lodestar.core.event;

/**
 * A change of one service, as seen by a view. Every event carries the service revision it was produced at:
 * revisions of one service increase by one with every write, and listeners get them in order.
 */
public sealed interface ServiceEvent
        permits InstanceRegistered, InstanceUpdated, InstanceDeregistered, InstanceExpired, ServiceResynced {
    /** @return the service that changed */
    String serviceId();

    /** @return the service revision this event was produced at */
    long revision();
}
