package io.lodestar.core;

import java.time.Duration;

/**
 * Redis did not answer within the configured command timeout. Named apart from
 * {@code java.util.concurrent.TimeoutException}, so both can be caught in one place without qualifying either.
 */
public class CommandTimeoutException extends UnavailableException {
    private static final long serialVersionUID = 1L;
    private final Duration timeout;

    /**
     * @param operation what was attempted, e.g. {@code "register orders/orders-1"}
     * @param timeout   the bound that was exceeded
     * @param cause     the client failure
     */
    public CommandTimeoutException(String operation, Duration timeout, Throwable cause) {
        super(operation + " timed out after " + timeout.toMillis() + " ms", cause);
        this.timeout = timeout;
    }

    /** @return the bound that was exceeded */
    public Duration timeout() {
        return timeout;
    }
}
