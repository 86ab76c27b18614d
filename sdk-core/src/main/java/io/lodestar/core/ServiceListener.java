package io.lodestar.core;

import io.lodestar.core.event.ServiceEvent;

/**
 * Receives the changes of one service, in revision order, on a Lodestar thread (never Redis' I/O thread).
 * A listener that throws is logged and keeps its subscription; other listeners are not affected.
 *
 * <p>A listener can keep its own copy of the service from the events alone, and the events never contradict it:
 * each event is a change of the state the events before it describe. {@code InstanceExpired} and
 * {@code InstanceDeregistered} name only an instance that state holds (an instance past its deadline stays in it
 * until the sweep removes it and says so); a {@code ServiceResynced} (after a reconnect or a missed event) carries
 * the whole new state and comes only when that state differs from the one before it. Revisions of successive events
 * increase, but not always by one: changes that do not alter the state (e.g. the removal of an instance the
 * listener never saw) move the revision without an event.
 */
@FunctionalInterface
public interface ServiceListener {
    /** @param event the change; switch over the sealed {@link ServiceEvent} types */
    void onEvent(ServiceEvent event);
}
