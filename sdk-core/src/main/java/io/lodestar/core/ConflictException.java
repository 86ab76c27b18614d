package io.lodestar.core;

/**
 * A conditional write lost: a compare-and-set expected one version but found another.
 * {@link #currentVersion()} tells the caller what to re-read from.
 */
public class ConflictException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final String id;
    private final long expectedVersion;
    private final long currentVersion;

    /**
     * @param id              the entry written
     * @param expectedVersion the version the caller expected (0 = expected absent)
     * @param currentVersion  the version actually found (0 = absent)
     */
    public ConflictException(String id, long expectedVersion, long currentVersion) {
        this("Conflict on '" + id + "': expected version " + expectedVersion + " but the current version is "
                + currentVersion, id, expectedVersion, currentVersion);
    }

    /**
     * A write that needs another state than the one found, with its own message (e.g. a purge of something that
     * still exists).
     *
     * @param message         what was refused, and why
     * @param id              the entry or service written
     * @param expectedVersion the version the write needed (0 = absent)
     * @param currentVersion  the version or revision actually found
     */
    public ConflictException(String message, String id, long expectedVersion, long currentVersion) {
        super(message);
        this.id = id;
        this.expectedVersion = expectedVersion;
        this.currentVersion = currentVersion;
    }

    /** @return the entry written */
    public String id() {
        return id;
    }

    /** @return the version the caller expected */
    public long expectedVersion() {
        return expectedVersion;
    }

    /** @return the version found in Redis (0 when the entry does not exist) */
    public long currentVersion() {
        return currentVersion;
    }
}
