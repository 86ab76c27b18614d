package io.lodestar.core;

/** What a client does when Redis cannot be reached while it is created. */
public enum StartupMode {
    /** Creation fails with an {@link UnavailableException} (the default): a misconfigured URI shows at once. */
    FAIL_FAST,
    /**
     * Creation succeeds and the client connects in the background: writes fail fast until then, views are stale
     * (and serve configs from the snapshot directory, if one is set), and everything heals once Redis answers.
     */
    OFFLINE
}
