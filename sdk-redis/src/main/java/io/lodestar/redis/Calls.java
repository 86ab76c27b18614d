package io.lodestar.redis;

import io.lodestar.core.LodestarException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The plumbing every operation of the registry, the config service and the async discovery shares, written once: an
 * operation is started with its description, and then either joined (the sync API: bounded, Lodestar exceptions
 * only, see {@link Await}) or published (the async API: Lodestar exceptions only, never completed on Redis' I/O
 * thread, see {@link Completions}). An input error thrown while starting fails the stage instead of being thrown,
 * so both APIs report it the same way.
 */
final class Calls {
    private final RedisBackend backend;
    /** Completes the async API's stages. */
    private final Executor executor;

    Calls(RedisBackend backend, Executor executor) {
        this.backend = backend;
        this.executor = executor;
    }

    /**
     * Starts an operation.
     *
     * @param description what it does, for an error ("register orders/orders-1"); made only when needed
     */
    <T> Call<T> start(Supplier<String> description, Supplier<? extends CompletionStage<T>> operation) {
        CompletionStage<T> stage;
        try {
            stage = operation.get();
        } catch (LodestarException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return new Call<>(stage, description);
    }

    /**
     * The end of a write that read-your-writes needs: first the report to the namespace index, if there is one (it
     * lives in another slot, so it is another script), then the wait until this client's view, if it follows
     * {@code id}, shows {@code revision}.
     *
     * @param report the report to the index, or null when the write changed nothing the index holds
     */
    static <T> CompletionStage<T> settle(Supplier<? extends CompletionStage<?>> report, SyncedView<?, ?> view,
                                         String id, long revision, T result) {
        CompletionStage<?> reported = report == null ? CompletableFuture.completedFuture(null) : report.get();
        return reported.thenCompose(ignored -> view.api().awaitRevision(id, revision)).thenApply(ignored -> result);
    }

    /** A started operation. */
    final class Call<T> {
        private final CompletionStage<T> stage;
        private final Supplier<String> description;

        private Call(CompletionStage<T> stage, Supplier<String> description) {
            this.stage = stage;
            this.description = description;
        }

        /** Its stage as it is, for internal use (Redis' exceptions, completed on any thread). */
        CompletionStage<T> stage() {
            return stage;
        }

        /** What it does, in words. */
        String description() {
            return description.get();
        }

        /** Waits for it, as the sync API does. */
        T join() {
            return Await.join(stage, description, backend);
        }

        /** Its stage as the async API hands it out. */
        CompletionStage<T> published() {
            return Completions.publish(stage, description.get(), backend, executor);
        }
    }
}
