package io.lodestar.core;

import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;

/**
 * A {@link ServiceListener} with one method per event type, each a no-op by default: override the ones you need
 * instead of switching over the sealed {@link ServiceEvent} types. An event type added in a later version gets a
 * method of its own with a no-op default, so it never breaks an adapter (Lettuce's {@code RedisPubSubAdapter}).
 */
public interface ServiceEventAdapter extends ServiceListener {
    /** Dispatches to the method of the event's type; not meant to be overridden. */
    @Override
    default void onEvent(ServiceEvent event) {
        if (event instanceof InstanceRegistered registered) {
            onRegistered(registered);
        } else if (event instanceof InstanceUpdated updated) {
            onUpdated(updated);
        } else if (event instanceof InstanceDeregistered deregistered) {
            onDeregistered(deregistered);
        } else if (event instanceof InstanceExpired expired) {
            onExpired(expired);
        } else if (event instanceof ServiceResynced resynced) {
            onResynced(resynced);
        }
    }

    /** @param event an instance joined the service */
    default void onRegistered(InstanceRegistered event) {
    }

    /** @param event an instance's status, weight or metadata changed */
    default void onUpdated(InstanceUpdated event) {
    }

    /** @param event an instance was deregistered */
    default void onDeregistered(InstanceDeregistered event) {
    }

    /** @param event an instance's lease ran out */
    default void onExpired(InstanceExpired event) {
    }

    /** @param event the view re-read the whole service (or delivers the initial state) */
    default void onResynced(ServiceResynced event) {
    }
}
