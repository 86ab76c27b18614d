package io.lodestar.redis;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * Where a client runs a kind of work (its view's tasks, listener deliveries and completions of public futures), and
 * how that stops when the client closes: a pool of the client's own is shut down; a lane on an executor that other
 * clients share ({@code RedisLodestar.Builder.executor}) refuses tasks from then on, as the client's own pool would
 * after its shutdown, so work offered by a closing client fails the way it always did instead of running on the
 * others' threads.
 */
final class ClientLane implements Executor {
    private final Executor target;
    private final Runnable stop;
    private volatile boolean closed;

    private ClientLane(Executor target, Runnable stop) {
        this.target = target;
        this.stop = stop;
    }

    /** The client's own single thread (a view's): closing interrupts what runs and drops what waits. */
    static ClientLane ownThread(ExecutorService thread) {
        return new ClientLane(thread, thread::shutdownNow);
    }

    /** The client's own pool (listeners): closing lets what was handed over finish. */
    static ClientLane ownPool(ExecutorService pool) {
        return new ClientLane(pool, pool::shutdown);
    }

    /** On a shared executor, tasks run one at a time, in submission order (a view's single thread). */
    static ClientLane serial(Executor shared) {
        return new ClientLane(new SerialExecutor(shared), () -> { });
    }

    /** On a shared executor, tasks run as it runs them (listener deliveries, completions of public futures). */
    static ClientLane concurrent(Executor shared) {
        return new ClientLane(shared, () -> { });
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
        stop.run();
    }
}
