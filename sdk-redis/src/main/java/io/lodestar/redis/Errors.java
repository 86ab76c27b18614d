package io.lodestar.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lodestar.core.AccessDeniedException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.ScriptException;
import io.lodestar.core.CommandTimeoutException;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.internal.Validation;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** Turns Lettuce failures into Lodestar exceptions (no Lettuce type crosses the public API), keeping the cause. */
final class Errors {
    private Errors() {
    }

    /**
     * @param failure   what the client threw or completed with
     * @param operation what was attempted, for the message, e.g. {@code "register orders/orders-1"}
     * @param where     the redacted Redis address
     * @param timeout   the command timeout in force
     * @return the Lodestar exception to throw
     */
    static LodestarException translate(Throwable failure, String operation, String where, Duration timeout) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LodestarException lodestar) {
            return lodestar;
        }
        if (cause instanceof Replies.Corrupt corrupt) {
            return new ScriptException(operation, operation + " found a corrupt key at " + where + ": "
                    + corrupt.getMessage() + " (another program writes into Lodestar's keys, prefix 'lodestar:')",
                    cause);
        }
        if (cause instanceof RedisCommandTimeoutException || cause instanceof TimeoutException) {
            return new CommandTimeoutException(operation + " at " + where, timeout, cause);
        }
        if (cause instanceof RedisCommandExecutionException execution) {
            // printable: a Redis error can quote a key or a field another program named
            String message = Validation.printable(String.valueOf(execution.getMessage()));
            // a command a script calls is refused with ERR, not NOPERM
            if (message.startsWith("NOPERM") || message.startsWith("NOAUTH") || message.startsWith("WRONGPASS")
                    || message.contains("user executing the script can't run this command")) {
                return new AccessDeniedException(operation + " was refused by Redis at " + where
                        + " (check the ACL user's permissions; see docs/redis.md for the commands Lodestar needs): "
                        + message, cause);
            }
            if (message.startsWith("WRONGTYPE")) {
                return new ScriptException(operation, operation + " found a key of another type at " + where
                        + ": another program writes into Lodestar's keys (prefix 'lodestar:'): " + message, cause);
            }
            if (message.startsWith("LOADING") || message.startsWith("CLUSTERDOWN") || message.startsWith("TRYAGAIN")
                    || message.startsWith("MASTERDOWN")) {
                return new UnavailableException(operation + ": Redis at " + where + " is not ready: " + message,
                        cause);
            }
            return new ScriptException(operation, operation + " failed in Redis at " + where + ": " + message, cause);
        }
        if (cause instanceof RedisConnectionException || cause instanceof RedisException
                || cause instanceof IOException) {
            return new UnavailableException(operation + ": Redis at " + where + " is unreachable ("
                    + cause.getMessage() + ")", cause);
        }
        return new LodestarException(operation + " failed unexpectedly: " + cause, cause);
    }

    static Throwable unwrap(Throwable failure) {
        Throwable current = failure;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
