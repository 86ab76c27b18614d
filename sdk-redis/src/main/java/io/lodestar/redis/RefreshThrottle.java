package io.lodestar.redis;

import io.lodestar.redis.internal.time.Clock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one cluster topology refresh per interval for failures (commands that could not reach a node, reconnects
 * that failed): a burst of them, hundreds of failed commands in a failover, costs one refresh, not hundreds. The
 * first ask passes at once.
 */
final class RefreshThrottle {
    private final Clock clock;
    private final long intervalNanos;
    private final AtomicLong last;

    RefreshThrottle(Clock clock, Duration interval) {
        this.clock = clock;
        this.intervalNanos = interval.toNanos();
        this.last = new AtomicLong(clock.nanoTime() - intervalNanos);
    }

    /** Whether a refresh may go now (and then none for the interval); safe from any thread. */
    boolean tryAcquire() {
        long now = clock.nanoTime();
        long previous = last.get();
        return now - previous >= intervalNanos && last.compareAndSet(previous, now);
    }
}
