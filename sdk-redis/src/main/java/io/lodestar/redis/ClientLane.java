package io.lodestar.redis;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A client's use of an executor that other clients share ({@code RedisLodestar.Builder.executor}): it refuses tasks
 * once the client closed, as a pool of the client's own refuses them after its shutdown, so work offered by a
 * closing client fails the way it always did instead of running on the others' threads.
 */
final class ClientLane implements Executor {
    private final Executor target;
    private volatile boolean closed;

    private ClientLane(Executor target) {
        this.target = target;
    }

    /** Tasks run one at a time, in submission order (a view's single thread). */
    static ClientLane serial(Executor shared) {
        return new ClientLane(new SerialExecutor(shared));
    }

    /** Tasks run as the shared executor runs them (listener deliveries, completions of public futures). */
    static ClientLane concurrent(Executor shared) {
        return new ClientLane(shared);
    }

    @Override
    public void execute(Runnable task) {
        if (closed) {
            throw new RejectedExecutionException("the client is closed");
        }
        target.execute(task);
    }

    void close() {
        closed = true;
    }
}
