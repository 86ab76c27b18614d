package io.lodestar.core.model;

/** What an instance says about its own readiness. Load balancers choose only {@link #UP} instances by default. */
public enum InstanceStatus {
    /** Ready for traffic. */
    UP,
    /** Registered but failing; not to be chosen. */
    DOWN,
    /** Taken out of rotation by an operator (drain, maintenance); not to be chosen. */
    OUT_OF_SERVICE,
    /** Registered early, still warming up; not to be chosen yet. */
    STARTING,
    /**
     * A status this version does not know, written by a newer client; not to be chosen. Only ever read: a write
     * with it is rejected.
     */
    UNKNOWN
}
