package io.lodestar.redis;

import io.lodestar.core.UnavailableException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Completes the public API's calls with Lodestar exceptions only: blocking (bounded) or async. */
final class Await {
    private Await() {
    }

    static <T> T join(CompletionStage<T> stage, String operation, RedisBackend backend) {
        try {
            // Three timeouts: a script, the NOSCRIPT retry and the read-your-writes wait may each take one.
            return stage.toCompletableFuture().get(backend.timeout().toMillis() * 3, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(operation + " was interrupted", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw Errors.translate(e, operation, backend.where(), backend.timeout());
        }
    }

    /** The async API's stage: the same outcome, but a failure is the Lodestar exception {@link #join} would throw. */
    static <T> CompletionStage<T> translated(CompletionStage<T> stage, String operation, RedisBackend backend) {
        CompletableFuture<T> result = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(Errors.translate(failure, operation, backend.where(), backend.timeout()));
            }
        });
        return result;
    }
}
