package io.lodestar.redis;

import io.lodestar.core.ClientClosedException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.Subscription;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.ViewStatus;
import io.lodestar.redis.SyncedView.Shared;
import io.lodestar.redis.SyncedView.Transport;
import io.lodestar.redis.SyncedView.Versioned;
import io.lodestar.redis.internal.time.Clock;
import io.lodestar.redis.internal.view.Deadlines;
import io.lodestar.redis.internal.view.ViewLimits;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * What applications' reads and listeners of a {@link SyncedView} go through (discovery, config, the index): a held
 * value read lock-free, a first read that loads (bounded, on the view's clock), listeners attached to a topic, and
 * read-your-writes waits. The view's state machine does the loading and the applying; this class only asks it to.
 * Thread-safe.
 *
 * @param <V> the value of one topic (immutable)
 * @param <E> the event listeners get
 */
final class ViewReads<V, E> {
    private final SyncedView<V, E> view;
    private final String name;
    private final TopicTable<ViewTopic<V, E>, V> topics;
    private final ViewHealth health;
    private final Deadlines deadlines;
    private final Transport backend;
    private final Executor viewThread;
    private final Executor listenerPool;
    private final Clock clock;
    private final ViewLimits limits;
    private final Duration timeout;

    ViewReads(SyncedView<V, E> view, TopicTable<ViewTopic<V, E>, V> topics, ViewHealth health, Deadlines deadlines,
              Shared shared) {
        this.view = view;
        this.name = view.name();
        this.topics = topics;
        this.health = health;
        this.deadlines = deadlines;
        this.backend = shared.transport();
        this.viewThread = shared.viewThread();
        this.listenerPool = shared.listenerPool();
        this.clock = shared.clock();
        this.limits = shared.limits();
        this.timeout = backend.timeout();
    }

    /** The current value of a topic, loading it (blocking, bounded) on first use. */
    V get(String id) {
        V held = getIfHeld(id);
        return held != null ? held : load(id).value();
    }

    /** Ids of the topics held. */
    List<String> held() {
        return topics.ids();
    }

    /** The value held for an id, or null: no loading, no read counted, no idle time touched (another view asks). */
    V peek(String id) {
        ViewTopic<V, E> topic = topics.live(id);
        Versioned<V> current = topic == null ? null : topic.current;
        return current == null ? null : current.value();
    }

    /** The values held now, by id, without counting a read or touching their idle time (monitoring). */
    SortedMap<String, V> peekHeld() {
        SortedMap<String, V> held = new TreeMap<>();
        for (ViewTopic<V, E> topic : topics.all()) {
            Versioned<V> current = topic.current;
            if (current != null) {
                held.put(topic.id, current.value());
            }
        }
        return Collections.unmodifiableSortedMap(held);
    }

    /** The status of two views read together: the staler one, restored from disk if either is. */
    static ViewStatus combined(ViewStatus a, ViewStatus b) {
        return ViewHealth.combined(a, b);
    }

    ViewStatus status() {
        return health.status();
    }

    private Versioned<V> load(String id) {
        try {
            return loadAsync(id).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException("Interrupted while loading " + name + " '" + id + "'", e);
        } catch (ExecutionException e) {
            throw (LodestarException) e.getCause();
        }
    }

    /**
     * Loads a topic without blocking: completes (bounded by twice the command timeout on the view's clock, and
     * with {@link ClientClosedException} at once when the view closes) with its value, or with a Lodestar exception,
     * on the view thread; callers hand user code over to another executor. A failure is never cached: the next read
     * tries again.
     */
    CompletableFuture<Versioned<V>> loadAsync(String id) {
        view.requireOpen();
        ViewTopic<V, E> topic = topics.getOrCreate(id);
        CompletableFuture<Versioned<V>> attempt = new CompletableFuture<>();
        view.executeOrClosed(() -> {
            Versioned<V> current = topic.current;
            if (current != null) {
                attempt.complete(current);
            } else {
                view.sync(topic).whenComplete((loaded, failure) -> {
                    if (failure == null) {
                        attempt.complete(loaded);
                    } else {
                        attempt.completeExceptionally(failure);
                    }
                });
            }
        });
        deadlines.bound(attempt, timeout.multipliedBy(2), () -> attempt.completeExceptionally(new TimeoutException()),
                () -> attempt.completeExceptionally(backend.closedException()));
        CompletableFuture<Versioned<V>> result = new CompletableFuture<>();
        attempt.whenComplete((loaded, failure) -> {
            if (failure == null) {
                result.complete(loaded);
                return;
            }
            view.removeUnpinned(id, topic); // never cache a failure: the next read tries again
            result.completeExceptionally(Errors.translate(failure, "load " + name + " '" + id + "'",
                    backend.where(), timeout));
        });
        return result;
    }

    /**
     * Waits (bounded) until a topic is loaded, which starts its listeners: after a subscribe, so that every later
     * write reaches the listener. While Redis cannot be reached it returns false at once: the subscription stays,
     * and starts when the view can load the topic.
     */
    boolean awaitLoaded(String id) {
        try {
            get(id);
            return true;
        } catch (LodestarException unavailable) {
            return false;
        }
    }

    Subscription subscribe(String id, Consumer<E> listener) {
        return subscribe(id, listener, null);
    }

    /**
     * Like {@link #subscribe(String, Consumer)}; {@code onStart}, when given, is called first, on the listener's
     * thread, with the value the listener starts from (once the topic is loaded): the listener then gets every
     * event after that value and none before it.
     */
    Subscription subscribe(String id, Consumer<E> listener, Consumer<Versioned<V>> onStart) {
        return subscribe(id, listener, onStart, listenerPool);
    }

    /** Like {@link #subscribe(String, Consumer, Consumer)}, calling the listener on the given executor, serially. */
    Subscription subscribe(String id, Consumer<E> listener, Consumer<Versioned<V>> onStart, Executor executor) {
        view.requireOpen();
        AtomicReference<ViewListener<V, E>> attached = new AtomicReference<>();
        // Attach inside the map's compute: a topic that expires or is removed (a failed first load) at this very
        // moment either keeps the listener or is replaced by a new one that has it, never drops it.
        ViewTopic<V, E> topic = topics.attach(id, held -> {
            attached.set(new ViewListener<>(held, listener, onStart, executor, limits.maxListenerQueue()));
            held.listeners.add(attached.get());
        });
        ViewListener<V, E> slot = attached.get();
        pin(id, topic);
        viewThread.execute(() -> {
            if (topic.current != null) {
                slot.start(topic.current);
            } else if (!topic.syncing) {
                view.sync(topic);
            }
        });
        return () -> {
            if (topic.listeners.remove(slot)) {
                pin(id, topic);
            }
        };
    }

    /** Re-evaluates a topic's expiry: pinned (with listeners), never; else the idle timeout. */
    private void pin(String id, ViewTopic<V, E> topic) {
        topics.pin(id, topic);
    }

    /**
     * Completes (bounded by the command timeout on the view's clock, at once when the view closes, never
     * exceptionally) when the topic, if held, reflects at least {@code revision}: read-your-writes for this client's
     * own writes. If the event does not arrive quickly, the topic is re-read.
     */
    CompletableFuture<Void> awaitRevision(String id, long revision) {
        ViewTopic<V, E> topic = topics.ifPresent(id);
        if (topic == null || topic.current == null || topic.current.revision() >= revision) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> reached = new CompletableFuture<>();
        deadlines.bound(reached, timeout, () -> reached.complete(null), () -> reached.complete(null));
        viewThread.execute(() -> {
            if (topic.current == null || topic.current.revision() >= revision) {
                reached.complete(null);
                return;
            }
            RevisionWaiters.Waiter waiter = topic.waiters.add(revision, reached);
            // a revision that never comes (Redis restarted and counts from 1 again) must not keep its waiter
            reached.whenComplete((ok, failure) -> viewThread.execute(() -> topic.waiters.remove(waiter)));
            clock.schedule(() -> viewThread.execute(() -> {
                if (!reached.isDone() && !topic.syncing) {
                    view.sync(topic);
                }
            }), limits.revisionGrace().toMillis(), TimeUnit.MILLISECONDS);
        });
        return reached;
    }

    /**
     * The value of a topic for a public read: a lock-free, allocation-free lookup when held; otherwise the id is
     * validated (so bad input gets its clear exception, not a Caffeine NullPointerException) and loaded.
     */
    V read(String id, UnaryOperator<String> validate) {
        if (id != null) {
            V held = getIfHeld(id);
            if (held != null) {
                return held;
            }
        }
        return get(validate.apply(id));
    }

    /** Subscribes, and returns once the listener is attached (see {@link #awaitLoaded(String)}). */
    Subscription subscribeAttached(String id, Consumer<E> listener) {
        return subscribeAttached(id, listener, null, listenerPool);
    }

    /**
     * Like {@link #subscribeAttached(String, Consumer)}, with a first call for the value the listener starts from
     * (or null for none) and the executor the listener runs on.
     */
    Subscription subscribeAttached(String id, Consumer<E> listener, Consumer<Versioned<V>> onStart,
                                   Executor executor) {
        Subscription subscription = subscribe(id, listener, onStart, executor);
        awaitLoaded(id);
        return subscription;
    }

    /**
     * The value if held (no loading, no allocation), else null: one map lookup that lands on the value (the topic
     * object is not read), a bit marked for idle expiry (see {@link TopicTable}), a read counted.
     */
    V getIfHeld(String id) {
        V value = topics.read(id);
        if (value != null) {
            view.reads.increment();
        }
        return value;
    }
}
