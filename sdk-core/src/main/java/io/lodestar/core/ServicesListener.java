package io.lodestar.core;

import io.lodestar.core.event.ServicesChanged;

/**
 * Receives changes of the set of services of a namespace, in order, on a Lodestar thread. One change may cover
 * several services: a view that receives many index events at once applies them together and reports the net
 * change (a service added and removed again within it is not reported). {@link ServicesChanged#services()} is
 * always the whole set after the change.
 */
@FunctionalInterface
public interface ServicesListener {
    /** @param change the services now, and what was added and removed */
    void onChange(ServicesChanged change);
}
