package io.lodestar.core;

import io.lodestar.core.event.ServicesChanged;

/** Receives changes of the set of services of a namespace, in order, on a Lodestar thread. */
@FunctionalInterface
public interface ServicesListener {
    /** @param change the services now, and what was added and removed */
    void onChange(ServicesChanged change);
}
