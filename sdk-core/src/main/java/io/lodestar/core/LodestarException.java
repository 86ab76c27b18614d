package io.lodestar.core;

/**
 * Root of every exception Lodestar throws. Unchecked, so callers catch only the families they care about:
 * {@link InvalidArgumentException}, {@link NotFoundException}, {@link ConflictException},
 * {@link UnavailableException} (with {@link CommandTimeoutException}), {@link AccessDeniedException},
 * {@link ScriptException} and {@link ClientClosedException}.
 */
public class LodestarException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong, with the values involved */
    public LodestarException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, with the values involved
     * @param cause   the underlying failure (a Redis client exception, an I/O error, ...)
     */
    public LodestarException(String message, Throwable cause) {
        super(message, cause);
    }
}
