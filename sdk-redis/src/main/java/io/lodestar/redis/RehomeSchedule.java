package io.lodestar.redis;

import io.lodestar.redis.internal.time.Clock;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * When the cluster's orphaned subscriptions are re-homed: one round at a time, each round a topology refresh (when a
 * node sees another topology) and a subscribe per slot. The first round waits {@link #FIRST_DELAY_MS} so a burst
 * of drops shares one refresh; a round that made no progress is followed by another after {@link #INTERVAL_MS}
 * ({@link #FAST_ATTEMPTS} times, which covers a replica's promotion, node timeout plus an election, with room for
 * the 1 s goal), then every {@link #SLOW_INTERVAL_MS} (a master without a replica, down for good, should not cost
 * four probes a second forever). A node that comes back, or a topology that changed, cuts the wait short: the round waiting starts after
 * the first delay, and one running is followed by another at once.
 */
final class RehomeSchedule {
    static final long FIRST_DELAY_MS = 10;
    static final long INTERVAL_MS = 250;
    static final int FAST_ATTEMPTS = 60;
    static final long SLOW_INTERVAL_MS = 2_000;

    private final Clock clock;
    private final BooleanSupplier needed;
    private final IntConsumer round;
    /** A round is scheduled or running; it ends with {@link #roundDone}. */
    private final AtomicBoolean busy = new AtomicBoolean();
    /** The ticket of the round scheduled and not started yet, else 0 (a ticket no longer there runs nothing). */
    private final AtomicLong waiting = new AtomicLong();
    private final AtomicLong tickets = new AtomicLong();
    /** A node came back during a round: the next round starts after the first delay, not after the interval. */
    private volatile boolean soon;

    /**
     * @param needed whether there is anything to re-home (and the client is open)
     * @param round  runs round number {@code attempt} (0 after progress or a node's return), then calls
     *               {@link #roundDone}
     */
    RehomeSchedule(Clock clock, BooleanSupplier needed, IntConsumer round) {
        this.clock = clock;
        this.needed = needed;
        this.round = round;
    }

    /** The wait before round number {@code attempt}. */
    static long delayMillis(int attempt) {
        return attempt == 0 ? FIRST_DELAY_MS : attempt <= FAST_ATTEMPTS ? INTERVAL_MS : SLOW_INTERVAL_MS;
    }

    /** Channels were orphaned: a round soon, unless one is scheduled or running (it takes them along). */
    void orphaned() {
        schedule(0);
    }

    /**
     * Something changed that may let orphans reach their owner now (a node is back, the topology changed): the waiting
     * round starts after the first delay, a running one is followed by another at once.
     */
    void retrySoon() {
        soon = true;
        if (waiting.getAndSet(0) != 0) {
            start(0, FIRST_DELAY_MS);
        } else {
            schedule(0);
        }
    }

    /** Round number {@code attempt} ended; {@code progress}: it subscribed some channel. */
    void roundDone(int attempt, boolean progress) {
        busy.set(false);
        boolean back = soon;
        soon = false;
        schedule(progress || back ? 0 : attempt + 1);
    }

    private void schedule(int attempt) {
        if (needed.getAsBoolean() && busy.compareAndSet(false, true)) {
            start(attempt, delayMillis(attempt));
        }
    }

    private void start(int attempt, long delayMillis) {
        long ticket = tickets.incrementAndGet();
        waiting.set(ticket);
        try {
            clock.schedule(() -> {
                if (waiting.compareAndSet(ticket, 0)) { // else a node's return started another round already
                    round.accept(attempt);
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            busy.set(false); // the client's resources are shutting down: so is the client
        }
    }
}
