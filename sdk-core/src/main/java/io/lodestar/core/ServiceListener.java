package io.lodestar.core;

import io.lodestar.core.event.ServiceEvent;

/**
 * Receives the changes of one service, in revision order, on a Lodestar thread (never Redis' I/O thread).
 * A listener that throws is logged and keeps its subscription; other listeners are not affected.
 */
@FunctionalInterface
public interface ServiceListener {
    /** @param event the change; switch over the sealed {@link ServiceEvent} types */
    void onEvent(ServiceEvent event);
}
