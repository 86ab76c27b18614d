package io.lodestar.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs tasks one at a time, in submission order, on a shared pool: each listener gets its events in order without
 * a thread of its own, and a slow or throwing listener never holds up another one.
 */
final class SerialExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor pool;
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // a caller's executor that is shut down or full: drop what waits rather than wedge this listener
            synchronized (tasks) {
                log.warn("A listener's executor rejected its events ({}); {} event(s) dropped", e.toString(),
                        tasks.size());
                tasks.clear();
                running = false;
            }
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (tasks) {
                next = tasks.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException | Error e) {
                log.warn("A Lodestar listener threw; it stays subscribed and other listeners are not affected", e);
            }
        }
    }
}
