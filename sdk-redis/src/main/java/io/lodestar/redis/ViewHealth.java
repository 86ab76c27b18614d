package io.lodestar.redis;

import io.lodestar.core.ViewStatus;
import io.lodestar.redis.internal.time.Clock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link SyncedView} tells about its freshness: since when it is stale (a connection it needs was lost, and
 * not every topic was re-read since), when it last heard from Redis, whether it serves a local snapshot, and how
 * many disconnects it has seen (a load that started before the last one may have missed events). Thread-safe: the
 * view thread and the connection's threads write it, any thread reads it.
 */
final class ViewHealth {
    /** "Not stale" and "never" in the two times below: a clock can read 0 (a manual one starts there). */
    private static final long NEVER = Long.MIN_VALUE;
    private final Clock clock;
    private volatile long staleSinceNanos = NEVER;
    private volatile long lastSyncNanos = NEVER;
    private volatile boolean restoredFromDisk;
    /** +1 per disconnect: a topic loaded since the last one missed nothing and needs no resync on reconnect. */
    private final AtomicLong disconnects = new AtomicLong();

    /** @param clock the clock of staleness (a manual one in unit tests) */
    ViewHealth(Clock clock) {
        this.clock = clock;
    }

    /** The status of two views read together: the staler one, restored from disk if either is. */
    static ViewStatus combined(ViewStatus a, ViewStatus b) {
        ViewStatus staler = a.staleFor().compareTo(b.staleFor()) >= 0 ? a : b;
        return new ViewStatus(staler.stale(), staler.staleFor(), staler.lastSyncAt(),
                a.restoredFromDisk() || b.restoredFromDisk());
    }

    ViewStatus status() {
        long staleSince = staleSinceNanos;
        long lastSync = lastSyncNanos;
        long now = clock.nanoTime();
        Instant lastSyncAt = lastSync == NEVER ? null : clock.instant().minusNanos(now - lastSync);
        return staleSince == NEVER
                ? new ViewStatus(false, Duration.ZERO, lastSyncAt, restoredFromDisk)
                : new ViewStatus(true, Duration.ofNanos(now - staleSince), lastSyncAt, restoredFromDisk);
    }

    /** Nanoseconds since the view last heard from Redis, or -1 if never. */
    long nanosSinceLastSync() {
        long lastSync = lastSyncNanos;
        return lastSync == NEVER ? -1 : clock.nanoTime() - lastSync;
    }

    /** The view just heard from Redis (an event, a load, a reconcile's read). */
    void heard() {
        lastSyncNanos = clock.nanoTime();
    }

    /** The number of disconnects that make every topic loaded before them resync: a load notes it when it starts. */
    long epoch() {
        return disconnects.get();
    }

    /**
     * A connection the view needs was lost: stale from now on (if not already).
     *
     * @param everyTopicResyncs whether every topic loaded before now must resync (one more disconnect)
     */
    void markStale(boolean everyTopicResyncs) {
        if (everyTopicResyncs) {
            disconnects.incrementAndGet();
        }
        if (staleSinceNanos == NEVER) {
            staleSinceNanos = clock.nanoTime();
        }
    }

    /** Every topic is current again. */
    void markFresh() {
        staleSinceNanos = NEVER;
    }

    void markRestoredFromDisk() {
        restoredFromDisk = true;
    }
}
