package io.lodestar.redis;

import io.lodestar.core.UnavailableException;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** Blocks on a stage for the synchronous API: bounded, and with Lodestar exceptions only. */
final class Await {
    private Await() {
    }

    static <T> T join(CompletionStage<T> stage, String operation, RedisBackend backend) {
        return join(stage, () -> operation, backend);
    }

    /** Like {@link #join(CompletionStage, String, RedisBackend)}; the operation's text is made only for a failure. */
    static <T> T join(CompletionStage<T> stage, Supplier<String> operation, RedisBackend backend) {
        try {
            // Three timeouts: a script, the NOSCRIPT retry and the read-your-writes wait may each take one.
            return stage.toCompletableFuture().get(backend.timeout().toMillis() * 3, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(operation.get() + " was interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            backend.commandFailed(e);
            throw Errors.translate(e, operation.get(), backend.where(), backend.timeout());
        }
    }
}
