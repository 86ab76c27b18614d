package io.lodestar.core;

/**
 * Redis could not be reached, or did not answer in time. Writes fail fast with this exception while Redis is
 * down; reads from a local view keep serving the last known data instead.
 */
public class UnavailableException extends LodestarException {
    private static final long serialVersionUID = 1L;

    /** @param message what could not be done and where */
    public UnavailableException(String message) {
        super(message);
    }

    /**
     * @param message what could not be done and where
     * @param cause   the client failure
     */
    public UnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
