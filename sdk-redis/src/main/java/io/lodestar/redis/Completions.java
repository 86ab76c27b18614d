package io.lodestar.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Turns an internal stage into one the public API hands out: it completes with a Lodestar exception only (never a
 * Lettuce one), and on a Lodestar thread, never on Redis' I/O thread, so a user's continuation can never stall
 * an event loop. A stage that is already complete completes the result at once, on the caller's thread.
 */
final class Completions {
    private Completions() {
    }

    static <T> CompletableFuture<T> publish(CompletionStage<T> stage, String operation, RedisBackend backend,
                                            Executor executor) {
        CompletableFuture<T> source = stage.toCompletableFuture();
        CompletableFuture<T> result = new CompletableFuture<>();
        if (source.isDone()) {
            complete(result, source, operation, backend);
            return result;
        }
        source.whenComplete((value, failure) -> {
            try {
                executor.execute(() -> complete(result, source, operation, backend));
            } catch (RejectedExecutionException closed) {
                complete(result, source, operation, backend); // the client is closing: finish here
            }
        });
        return result;
    }

    private static <T> void complete(CompletableFuture<T> result, CompletableFuture<T> source, String operation,
                                     RedisBackend backend) {
        source.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else {
                backend.commandFailed(failure);
                result.completeExceptionally(Errors.translate(failure, operation, backend.where(),
                        backend.timeout()));
            }
        });
    }
}
