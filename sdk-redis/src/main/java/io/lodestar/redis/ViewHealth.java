package io.lodestar.redis;

import io.lodestar.core.ViewStatus;
import io.lodestar.redis.internal.time.Clock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link SyncedView} tells about its freshness: since when it is stale (a connection it needs was lost, and
 * not every topic was re-read since; or Redis lost data the view keeps serving, see {@link #keeping}), when it last
 * heard from Redis, whether it serves a local snapshot, and how many disconnects it has seen (a load that started
 * before the last one may have missed events). Thread-safe: the view thread and the connection's threads write it,
 * any thread reads it.
 */
final class ViewHealth {
    /** "Not stale" and "never" in the two times below: a clock can read 0 (a manual one starts there). */
    private static final long NEVER = Long.MIN_VALUE;
    private final Clock clock;
    private volatile long staleSinceNanos = NEVER;
    private volatile long lastSyncNanos = NEVER;
    private volatile boolean restoredFromDisk;
    /** Topics that keep items Redis lost (view thread writes), and since when one has (NEVER: none). */
    private volatile int keeping;
    private volatile long keepingSinceNanos = NEVER;
    /** +1 per disconnect: a topic loaded since the last one missed nothing and needs no resync on reconnect. */
    private final AtomicLong disconnects = new AtomicLong();

    /** @param clock the clock of staleness (a manual one in unit tests) */
    ViewHealth(Clock clock) {
        this.clock = clock;
    }

    /** The status of two views read together: the staler one, restored from disk if either is. */
    static ViewStatus combined(ViewStatus a, ViewStatus b) {
        ViewStatus staler = a.staleFor().compareTo(b.staleFor()) >= 0 ? a : b;
        ViewStatus other = staler == a ? b : a;
        return new ViewStatus(staler.stale(), staler.staleFor(), staler.lastSyncAt(),
                a.restoredFromDisk() || b.restoredFromDisk(),
                staler.staleReason() != null ? staler.staleReason() : other.staleReason());
    }

    ViewStatus status() {
        long staleSince = staleSinceNanos;
        long keptSince = keepingSinceNanos;
        int kept = keeping;
        long lastSync = lastSyncNanos;
        long now = clock.nanoTime();
        Instant lastSyncAt = lastSync == NEVER ? null : clock.instant().minusNanos(now - lastSync);
        if (staleSince == NEVER && kept == 0) {
            return new ViewStatus(false, Duration.ZERO, lastSyncAt, restoredFromDisk);
        }
        long since = staleSince == NEVER ? keptSince
                : keptSince == NEVER ? staleSince : Math.min(staleSince, keptSince);
        String reason = kept > 0
                ? "Redis lost its data: " + kept + (kept == 1 ? " entry keeps" : " entries keep") + " what it held"
                        + " until the owners write it again"
                : restoredFromDisk && lastSync == NEVER ? "served from the local snapshot until Redis answers"
                : "a connection to Redis was lost and not every entry was read since";
        return new ViewStatus(true, Duration.ofNanos(now - since), lastSyncAt, restoredFromDisk, reason);
    }

    /**
     * One more topic keeps items Redis lost (positive) or one fewer does (negative), view thread only: the view is
     * stale while any does.
     *
     * @return how many keep now
     */
    int keeping(int change) {
        int now = keeping + change;
        if (keeping == 0 && now > 0) {
            keepingSinceNanos = clock.nanoTime();
        } else if (now == 0) {
            keepingSinceNanos = NEVER;
        }
        keeping = now;
        return now;
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
