package io.lodestar.redis.internal.time;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The engine's only source of time and delayed execution, so its decisions (backoff, grace periods, lateness, lease
 * renewals) can be tested by advancing a manual clock instead of waiting on a real one.
 */
public interface Clock {

    /** Monotonic time in nanoseconds, as {@link System#nanoTime()}: only differences mean anything. */
    long nanoTime();

    /** Wall-clock time, for what is shown to people (last renewal, outage began); never for measuring intervals. */
    Instant instant();

    /**
     * Runs {@code task} once after {@code delay}.
     *
     * @throws RejectedExecutionException if the clock's scheduler is shut down (the client is closing)
     */
    Scheduled schedule(Runnable task, long delay, TimeUnit unit);

    /** A task given to {@link #schedule}. */
    @FunctionalInterface
    interface Scheduled {

        /** Cancels the task if it has not run; true if this call cancelled it. */
        boolean cancel();
    }

    /** The system clock, scheduling on {@code scheduler} (shared, not closed by the clock). */
    static Clock system(ScheduledExecutorService scheduler) {
        Objects.requireNonNull(scheduler, "scheduler");
        return new Clock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public Instant instant() {
                return Instant.now();
            }

            @Override
            public Scheduled schedule(Runnable task, long delay, TimeUnit unit) {
                ScheduledFuture<?> future = scheduler.schedule(task, delay, unit);
                return () -> future.cancel(false);
            }

            @Override
            public String toString() {
                return "Clock.system";
            }
        };
    }
}
