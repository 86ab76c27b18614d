package io.lodestar.core;

/**
 * Whether a new subscription first delivers the current state (as Nacos' {@code getConfigAndSignListener} does),
 * or only the changes after it.
 */
public enum Initial {
    /** Deliver only changes made after the subscription (the default). */
    SKIP,
    /**
     * Deliver the current state first, then every later change exactly once, in order: a service's state as a
     * {@link io.lodestar.core.event.ServiceResynced}, a config's as a {@link io.lodestar.core.event.ConfigChanged}
     * (nothing for a config that does not exist; its creation is then the first event).
     */
    DELIVER
}
