package io.lodestar.redis.internal.view;

import io.lodestar.redis.internal.time.Clock;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The deadlines of a view's pending calls (a load, a wait for a revision), timed on the view's {@link Clock} so its
 * tests move a manual clock instead of waiting. Each call ends at its deadline unless it ended first (then its timer
 * is cancelled). A call must never hang: when the clock cannot time it (its scheduler is shut down, the client is
 * closing) it ends at once as closed, and {@link #close} ends every pending one so (a closing client's scheduler
 * drops the timers it holds). Thread-safe.
 */
public final class Deadlines {
    private final Clock clock;
    /** What ends each pending call as closed. */
    private final Set<Runnable> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public Deadlines(Clock clock) {
        this.clock = clock;
    }

    /**
     * Bounds {@code call}: {@code onDeadline} runs (on the clock's thread) after {@code delay} unless {@code call}
     * completed first; {@code onClosed} runs instead if the clock rejects the timer or {@link #close} comes first.
     * Both are expected to complete {@code call}.
     */
    public void bound(CompletableFuture<?> call, Duration delay, Runnable onDeadline, Runnable onClosed) {
        pending.add(onClosed);
        call.whenComplete((value, failure) -> pending.remove(onClosed));
        if (closed) { // close() may have swept before this call was added: end it here
            onClosed.run();
            return;
        }
        Clock.Scheduled timer;
        try {
            timer = clock.schedule(onDeadline, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
            onClosed.run();
            return;
        }
        call.whenComplete((value, failure) -> timer.cancel());
    }

    /** How many calls wait for their deadline (tests). */
    public int pending() {
        return pending.size();
    }

    /** Ends every pending call as closed; a call bounded from now on ends so at once. */
    public void close() {
        closed = true;
        pending.forEach(Runnable::run);
    }
}
