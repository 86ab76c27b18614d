package io.lodestar.redis;

import io.lodestar.redis.internal.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Finds connections Redis stopped answering on. A Redis that stops answering without closing anything (a frozen
 * process, a partition that drops packets) closes no connection, and TCP keepalive cannot tell: a stopped process's
 * kernel still acknowledges every packet. So each watched connection is PINGed every half command timeout (50 ms to
 * 1 s); one that has not answered for the command timeout (at least two intervals) is {@linkplain Target#silent
 * silent} until its next answer. A connection that is not open is the connection listener's business: its clock
 * waits, and starts again when it {@linkplain #reconnected reconnects}. Never blocks.
 *
 * @param <C> a connection
 */
final class Heartbeat<C> {
    /** What the heartbeat needs of the connections it watches, and whom it tells. */
    interface Target<C> {
        /** Closed for good (a node left the topology, the client closed): forgotten. */
        boolean isClosed(C connection);

        /** Open now; a lost connection (reconnecting) is not PINGed and its clock waits. */
        boolean isOpen(C connection);

        CompletionStage<?> ping(C connection);

        /**
         * Redis left the connection unanswered for {@code silentFor} ({@code since} nanos of the clock);
         * {@code first}: no other connection is silent now.
         */
        void silent(C connection, Duration silentFor, long sinceNanos, boolean first);

        /** A silent connection answered again; {@code last}: no connection is silent any more. */
        void answers(C connection, boolean last);
    }

    private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);

    private final Clock clock;
    private final Target<C> target;
    private final BooleanSupplier closed;
    /** Half the command timeout, between 50 ms (a shorter timeout must not cost 100 PINGs a second) and 1 s. */
    private final long intervalMillis;
    /**
     * The command timeout, but at least two intervals: a connection is asked once an interval, so with a shorter
     * bound one that answers every PING would look silent between two of them.
     */
    private final Duration silentAfter;
    private final Map<C, Probe> probes = new ConcurrentHashMap<>();
    /** Connections Redis left silent right now. */
    private final Set<Probe> silentNow = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean started = new AtomicBoolean();

    /** One connection's PINGs: when it last answered, whether a PING waits for its answer. */
    private final class Probe {
        final C connection;
        volatile long lastAnswerNanos = clock.nanoTime();
        final AtomicBoolean waiting = new AtomicBoolean();

        Probe(C connection) {
            this.connection = connection;
        }
    }

    /**
     * @param clock  time and scheduling (on a client, its resources' event executors, not their timer: the timer
     *               holds only what a client's own work put there, so an idle client leaves it empty)
     * @param closed whether the client is closed: nothing is PINGed or scheduled after
     */
    Heartbeat(Duration timeout, Clock clock, Target<C> target, BooleanSupplier closed) {
        this.clock = clock;
        this.target = target;
        this.closed = closed;
        this.intervalMillis = Math.max(50, Math.min(1_000, timeout.toMillis() / 2));
        Duration twoIntervals = Duration.ofMillis(2 * intervalMillis);
        this.silentAfter = timeout.compareTo(twoIntervals) >= 0 ? timeout : twoIntervals;
    }

    /** Starts the PINGs (again: nothing new). */
    void start() {
        if (started.compareAndSet(false, true)) {
            schedule();
        }
    }

    /** PINGs this connection too (again: nothing new). */
    void watch(C connection) {
        probes.computeIfAbsent(connection, Probe::new);
    }

    /** Whether a watched connection is silent now. */
    boolean silent() {
        return !silentNow.isEmpty();
    }

    /** A connection came back (Lettuce reconnected it): its clock starts now, and it is silent no more. */
    void reconnected(C connection) {
        Probe probe = probes.get(connection);
        if (probe != null) {
            probe.lastAnswerNanos = clock.nanoTime();
            silentNow.remove(probe); // the connection listener tells whoever listens that it is connected
        }
    }

    long intervalMillis() {
        return intervalMillis;
    }

    private void schedule() {
        if (!closed.getAsBoolean()) {
            try {
                clock.schedule(this::beat, intervalMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException shutDown) {
                // the resources are shutting down: so is this client
            }
        }
    }

    private void beat() {
        try {
            long now = clock.nanoTime();
            probes.values().forEach(probe -> probe(probe, now));
        } catch (RuntimeException e) {
            log.debug("Heartbeat failed: {}", e.toString());
        } finally {
            schedule();
        }
    }

    private void probe(Probe probe, long now) {
        if (target.isClosed(probe.connection)) {
            probes.remove(probe.connection, probe); // a node left the topology
            silentNow.remove(probe);
            return;
        }
        if (closed.getAsBoolean() || !target.isOpen(probe.connection)) {
            probe.lastAnswerNanos = now; // lost or closed: the connection listener says so; the clock waits
            return;
        }
        if (probe.waiting.compareAndSet(false, true)) {
            target.ping(probe.connection).whenComplete((pong, failure) -> {
                probe.waiting.set(false);
                if (failure == null) {
                    answered(probe);
                }
            });
        }
        if (now - probe.lastAnswerNanos > silentAfter.toNanos() && silentNow.add(probe)) {
            target.silent(probe.connection, silentAfter, probe.lastAnswerNanos, silentNow.size() == 1);
        }
    }

    private void answered(Probe probe) {
        probe.lastAnswerNanos = clock.nanoTime();
        if (silentNow.remove(probe) && !closed.getAsBoolean()) {
            target.answers(probe.connection, silentNow.isEmpty());
        }
    }
}
