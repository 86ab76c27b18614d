package io.lodestar.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs tasks one at a time, in submission order, on a shared pool: each listener gets its events in order without
 * a thread of its own, and a slow or throwing listener never holds up another one.
 *
 * <p>Bounded: at most {@code capacity} tasks wait. A task offered to a full queue (a listener that is stuck or far
 * too slow), or that the pool rejects, is dropped, and once the queue has drained the {@code caughtUp} callback
 * runs, so the owner can hand the listener the state it missed in one event instead of every step.
 */
final class SerialExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor pool;
    private final int capacity;
    private final Runnable caughtUp;
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean running;
    private boolean dropped;

    /** Unbounded, for callers whose tasks are bounded by nature. */
    SerialExecutor(Executor pool) {
        this(pool, Integer.MAX_VALUE, () -> { });
    }

    SerialExecutor(Executor pool, int capacity, Runnable caughtUp) {
        this.pool = pool;
        this.capacity = capacity;
        this.caughtUp = caughtUp;
    }

    @Override
    public void execute(Runnable task) {
        offer(task);
    }

    /** @return false when the task was dropped (queue full, or the pool rejected it) */
    boolean offer(Runnable task) {
        return offerAll(List.of(task));
    }

    /**
     * Queues tasks together: all of them, or none when the queue has no room for all.
     *
     * @return false when the tasks were dropped (queue full, or the pool rejected them)
     */
    boolean offerAll(List<Runnable> batch) {
        synchronized (tasks) {
            if (batch.size() > capacity - tasks.size()) {
                dropped = true;
                return false;
            }
            tasks.addAll(batch);
            if (running) {
                return true;
            }
            running = true;
        }
        try {
            pool.execute(this::drain);
            return true;
        } catch (RejectedExecutionException e) {
            int lost;
            synchronized (tasks) {
                lost = tasks.size();
                tasks.clear();
                running = false;
                dropped = true;
            }
            log.warn("A listener's executor rejected its events ({}); {} event(s) dropped, the listener gets the"
                    + " current state once it runs again", e.toString(), lost);
            return false;
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (tasks) {
                next = tasks.poll();
                if (next == null) {
                    running = false;
                    if (!dropped) {
                        return;
                    }
                    dropped = false;
                    next = caughtUp;
                }
            }
            try {
                next.run();
            } catch (RuntimeException | Error e) {
                log.warn("A Lodestar listener threw; it stays subscribed and other listeners are not affected", e);
            }
            if (next == caughtUp) {
                return;
            }
        }
    }
}
