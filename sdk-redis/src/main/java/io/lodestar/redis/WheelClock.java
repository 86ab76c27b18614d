package io.lodestar.redis;

import io.lodestar.redis.internal.time.Clock;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Clock} whose delayed tasks wait on Lettuce's timer ({@link RedisBackend#timer()}, a hashed wheel with
 * 10 ms ticks, 100 ms on a caller's resources by default) and run on {@code executor} (the client's scheduler).
 *
 * <p>For the leases: a register starts its lease on Redis' I/O thread, and a scheduler's queue takes a lock and a
 * heap insertion per lease (its removal on cancel another), shared by every writing thread, while the wheel's insert
 * and cancel are lock-free queue offers whose work the timer thread does on its next tick. When due, the timer only
 * hands the task to the executor, so nothing of Lodestar's runs on Lettuce's timer thread. A tick late at most, which
 * a lease (TTL of at least one second, a renewal every third, late detection at a third) absorbs. A task due now
 * goes to the executor at once.
 */
final class WheelClock implements Clock {
    private static final Logger log = LoggerFactory.getLogger(WheelClock.class);

    private final Timer timer;
    private final Executor executor;

    WheelClock(Timer timer, Executor executor) {
        this.timer = timer;
        this.executor = executor;
    }

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
        if (delay <= 0) {
            executor.execute(task);
            return () -> false;
        }
        try {
            Timeout timeout = timer.newTimeout(due -> {
                try {
                    executor.execute(task);
                } catch (RejectedExecutionException closed) {
                    log.debug("A timed task was dropped: the client's scheduler is shut down");
                }
            }, delay, unit);
            return timeout::cancel;
        } catch (IllegalStateException stopped) {
            throw new RejectedExecutionException("Lettuce's timer is stopped (the client is closing)", stopped);
        }
    }

    @Override
    public String toString() {
        return "WheelClock[" + timer + "]";
    }
}
