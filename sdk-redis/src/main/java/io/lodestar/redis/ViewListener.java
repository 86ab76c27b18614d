package io.lodestar.redis;

import io.lodestar.redis.internal.view.ViewLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One listener of a topic of a {@link SyncedView}: events reach it in order on its own serial executor, from the
 * value it started at. Its queue is bounded ({@link ViewLimits#maxListenerQueue}): a listener that falls that far
 * behind (stuck, or far too slow) gets no more single events; once it has worked off its queue it gets one event
 * from the state it last had queued to the current one ({@link ViewSource#resynced}), so it is never left
 * wrong and never holds up the view. Its state is confined to the view thread; only its executor runs elsewhere.
 *
 * @param <V> the value of the topic
 * @param <E> the event the listener gets
 */
final class ViewListener<V, E> {
    /** Logged under the view's name: what a user reads about a listener comes from the view. */
    private static final Logger log = LoggerFactory.getLogger(SyncedView.class);

    /** What a listener needs of its topic and its view. */
    interface Topic<V, E> {
        /** Runs a task on the view thread. */
        void onViewThread(Runnable task);

        /** Whether the listener is still attached to the topic of an open view. */
        boolean follows(ViewListener<V, E> listener);

        /** The topic's value now (view thread). */
        SyncedView.Versioned<V> current();

        /** The one event from {@code before} to {@code after}, or null when a listener's state is already right. */
        E resynced(SyncedView.Versioned<V> before, SyncedView.Versioned<V> after);

        /** Counts an event dropped by a bound. */
        void overflowed();

        /** The view's name and the topic's id, for the log. */
        String describe();
    }

    private final Topic<V, E> topic;
    private final Consumer<E> consumer;
    private final Consumer<SyncedView.Versioned<V>> onStart;
    private final SerialExecutor executor;
    private final int maxQueue;
    // view thread only:
    /** Events are dispatched once the listener knows the value they follow. */
    private boolean started;
    /** The state after the last event queued for it. */
    private SyncedView.Versioned<V> queuedState;
    /** Its queue overflowed: events are skipped until it catches up. */
    private boolean lagging;

    /**
     * @param onStart  called first, on the listener's executor, with the value it starts from; or null
     * @param executor where the listener runs (serially)
     * @param maxQueue most events that wait for it
     */
    ViewListener(Topic<V, E> topic, Consumer<E> consumer, Consumer<SyncedView.Versioned<V>> onStart,
                 Executor executor, int maxQueue) {
        this.topic = topic;
        this.consumer = consumer;
        this.onStart = onStart;
        this.maxQueue = maxQueue;
        this.executor = new SerialExecutor(executor, maxQueue,
                () -> topic.onViewThread(this::catchUp));
    }

    boolean started() {
        return started;
    }

    /** The topic has its first value: events after it reach the listener from now on. */
    void start(SyncedView.Versioned<V> value) {
        if (!started) {
            started = true;
            queuedState = value;
            if (onStart != null) {
                executor.execute(() -> onStart.accept(value));
            }
        }
    }

    /**
     * Queues the events that led to {@code state} (a batch applied at once), unless the listener lags: all of
     * them, or none when its queue has no room for all (it then catches up from the state before them).
     */
    void deliver(List<E> events, SyncedView.Versioned<V> state) {
        if (lagging) {
            return;
        }
        List<Runnable> tasks = new ArrayList<>(events.size());
        for (E event : events) {
            tasks.add(() -> consumer.accept(event));
        }
        if (executor.offerAll(tasks)) {
            queuedState = state;
        } else {
            lagging = true;
            topic.overflowed();
            log.warn("{}: a listener is {} events behind (stuck or too slow); it gets the current state in one event"
                    + " once it catches up", topic.describe(), maxQueue);
        }
    }

    /** Its queue is empty again (view thread): from the state it last had queued to the current one. */
    private void catchUp() {
        if (!lagging || !topic.follows(this)) {
            return;
        }
        lagging = false;
        SyncedView.Versioned<V> now = topic.current();
        E event = topic.resynced(queuedState, now);
        if (event != null) {
            deliver(List.of(event), now);
        } else {
            queuedState = now;
        }
    }
}
