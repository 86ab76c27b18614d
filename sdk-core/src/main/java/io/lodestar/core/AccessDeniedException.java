package io.lodestar.core;

/**
 * Redis refused Lodestar for who it is, not for what it asked: the credentials are wrong or missing
 * ({@code WRONGPASS}, {@code NOAUTH}), or the ACL user lacks a command, key or channel Lodestar needs
 * ({@code NOPERM}). Retrying does not help; fixing the URI's credentials or the ACL does (docs/redis.md lists the
 * least-privilege ACL). Keeps Redis' own error as the cause.
 */
public class AccessDeniedException extends LodestarException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was refused, where, and what to check
     * @param cause   the Redis error
     */
    public AccessDeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}
