package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.lodestar.core.LodestarException;
import io.lodestar.core.Subscription;
import io.lodestar.core.Validation;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.ViewStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A local copy of a set of topics (the services, config entries or index of a namespace) kept current by PubSub.
 * Built once, used for discovery, config and the service index; what a topic is comes from a {@link Source}.
 *
 * <p>Reads are lock-free: each topic's current value is an immutable object behind a volatile field, swapped
 * whole. Every change of state runs on one view thread, so events of a topic are applied in revision order and a
 * late re-read can never bring back an old state. The rules that make a view converge:
 * <ul>
 *   <li>a topic is subscribed <em>before</em> it is loaded; events that arrive meanwhile are buffered and the ones
 *       newer than the load are applied after it;</li>
 *   <li>an event whose revision skips one (a lost message) makes the topic resync (re-read; a source that keeps
 *       history can replay what was missed to the listeners, see {@link Source#reload});</li>
 *   <li>every reconnect resubscribes and resyncs every topic loaded before the disconnect (Redis may have
 *       restarted: revisions can go back), at most {@link #MAX_CONCURRENT_RESYNCS} at once;</li>
 *   <li>a periodic reconcile compares each topic's revision with Redis and resyncs those that differ;</li>
 *   <li>a failed load is retried with backoff while anyone needs the topic; a failure is never cached;</li>
 *   <li>a first load that fails because Redis cannot be reached may serve the source's local copy
 *       ({@link Source#restore}), flagged in {@link #status()}, until a retry or reconnect reads Redis.</li>
 * </ul>
 * Topics nobody read for the idle timeout are dropped and unsubscribed (Caffeine's expiry); topics with listeners
 * are kept.
 *
 * @param <V> the value of one topic (immutable)
 * @param <E> the event listeners get
 */
final class SyncedView<V, E> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SyncedView.class);
    private static final long MAX_BACKOFF_MS = 30_000;

    /** What a topic is: where its events come from, how to load it and how an event changes it. */
    interface Source<V, E> {
        String channel(String id);

        CompletionStage<Versioned<V>> load(String id);

        CompletionStage<Long> revision(String id);

        /** The value after the event, and the listener event (null for none). */
        Applied<V, E> apply(String id, Versioned<V> current, Message message);

        /** The listener event for a resync that replaced {@code before} (null when nothing changed). */
        E resynced(String id, Versioned<V> before, Versioned<V> after);

        /**
         * A locally kept value to serve when a topic's first load fails because Redis cannot be reached (e.g. the
         * config snapshot directory), or null for none. The view keeps retrying and replaces it once Redis answers.
         */
        default Versioned<V> restore(String id) {
            return null;
        }

        /**
         * Loads a topic again (a resync) that holds {@code held}. A source that can tell what happened in between
         * (config history) returns those events, in order, ending at the loaded value, so listeners miss nothing;
         * by default it returns none, and listeners get the one {@link #resynced} event.
         */
        default CompletionStage<Reloaded<V, E>> reload(String id, Versioned<V> held) {
            return load(id).thenApply(loaded -> new Reloaded<>(loaded, null));
        }
    }

    record Versioned<V>(long revision, V value) {
    }

    /** A resync's result: the value, and the events that lead to it from the held value (null: unknown). */
    record Reloaded<V, E>(Versioned<V> value, List<E> events) {
    }

    record Message(long revision, Map<String, Object> fields) {
    }

    record Applied<V, E>(V value, E event) {
    }

    /** Counters for metrics. */
    final LongAdder reads = new LongAdder();
    final LongAdder eventsApplied = new LongAdder();
    final LongAdder resyncs = new LongAdder();
    final LongAdder gaps = new LongAdder();
    /** Events dropped as impossible (forged or corrupt): see {@link #reject}. */
    final LongAdder rejected = new LongAdder();

    /**
     * The largest revision step an event may take past the held revision. PubSub loses messages only with the
     * connection, and every reconnect resyncs, so a real event is never far ahead; one that is can only be forged.
     */
    static final long MAX_REVISION_STEP = 1_000_000;

    /**
     * At most this many topics of one view resync at once (after a reconnect, or retrying a failed load); the rest
     * wait for a free slot. A client holding thousands of services must not stampede a Redis that just came back,
     * while a view of a few topics still resyncs them all at once.
     */
    static final int MAX_CONCURRENT_RESYNCS = 64;

    private final String name;
    private final Source<V, E> source;
    private final RedisBackend backend;
    private final Executor viewThread;
    private final ScheduledExecutorService scheduler;
    private final Executor listenerPool;
    /** Owns the topics and expires idle ones. */
    private final Cache<String, Topic> topics;
    /**
     * The same topics, for the read path: a plain map lookup, cheaper than Caffeine's read with variable expiry.
     * Reads tell Caffeine about themselves at most once per {@link #tick}, which is all idle expiry needs. A topic
     * is alive (subscribed, applying events, served) exactly while it is in this map: Caffeine may hide an expired
     * topic a while before it evicts it, and until then the topic must stay current.
     */
    private final Map<String, Topic> readable = new ConcurrentHashMap<>();
    private final Map<String, Topic> byChannel = new ConcurrentHashMap<>();
    /** A coarse clock for the read path: +1 every idle timeout / 8 (between 10 ms and 1 s). */
    private volatile long tick;
    private final java.util.concurrent.ScheduledFuture<?> ticking;
    private final Duration timeout;
    private final long idleNanos;
    private volatile long staleSinceNanos;
    /** +1 per disconnect: a topic loaded since the last one missed nothing and needs no resync on reconnect. */
    private final AtomicLong disconnects = new AtomicLong();
    private volatile long lastSyncNanos;
    private volatile boolean restoredFromDisk;
    private volatile boolean closed;
    // view thread only:
    /** Topics waiting for a resync slot, in order, each once. */
    private final Set<Topic> waitingResyncs = new LinkedHashSet<>();
    /** Syncs in flight of topics that hold a value or a listener (first reads of a topic are not counted). */
    private int resyncsInFlight;
    /** The most {@link #resyncsInFlight} so far (tests). */
    volatile int peakResyncsInFlight;

    SyncedView(String name, Source<V, E> source, RedisBackend backend, Executor viewThread,
               ScheduledExecutorService scheduler, Executor listenerPool, Duration idleTimeout) {
        this.name = name;
        this.source = source;
        this.backend = backend;
        this.viewThread = viewThread;
        this.scheduler = scheduler;
        this.listenerPool = listenerPool;
        this.timeout = backend.timeout();
        this.idleNanos = idleTimeout.toNanos();
        this.topics = Caffeine.newBuilder()
                .scheduler(Scheduler.systemScheduler())
                .expireAfter(new Expiry<String, Topic>() {
                    @Override
                    public long expireAfterCreate(String id, Topic topic, long now) {
                        return topic.pinned() ? Long.MAX_VALUE : idleNanos;
                    }

                    @Override
                    public long expireAfterUpdate(String id, Topic topic, long now, long remaining) {
                        return expireAfterCreate(id, topic, now);
                    }

                    @Override
                    public long expireAfterRead(String id, Topic topic, long now, long remaining) {
                        return expireAfterCreate(id, topic, now);
                    }
                })
                .evictionListener((String id, Topic topic, RemovalCause cause) -> readable.remove(id, topic))
                .removalListener((String id, Topic topic, RemovalCause cause) -> {
                    if (topic != null && !closed) { // on close the connection goes anyway: nothing to unsubscribe
                        viewThread.execute(() -> drop(topic));
                    }
                })
                .build();
        long tickMillis = Math.max(10, Math.min(1000, idleTimeout.toMillis() / 8));
        this.ticking = scheduler.scheduleAtFixedRate(() -> tick++, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
    }

    /** Creates a topic in the cache (called by Caffeine, atomically per id) and makes it readable. */
    private Topic create(String id) {
        Topic topic = new Topic(id);
        readable.put(id, topic);
        return topic;
    }

    /** Removes a topic on purpose (not by expiry). */
    private void remove(String id, Topic topic) {
        if (topics.asMap().remove(id, topic)) {
            readable.remove(id, topic);
        }
    }

    // ---------------------------------------------------------------- reads (any thread)

    /** The current value of a topic, loading it (blocking, bounded) on first use. */
    V get(String id) {
        V held = getIfHeld(id);
        return held != null ? held : load(id).value;
    }

    /** Ids of the topics held. */
    List<String> held() {
        return List.copyOf(readable.keySet());
    }

    /** Runs pending expiry now (tests; Caffeine otherwise does it on its own schedule). */
    void cleanUp() {
        topics.cleanUp();
    }

    int size() {
        return readable.size();
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
        long now = System.nanoTime();
        Instant lastSyncAt = lastSync == 0 ? null : Instant.now().minusNanos(now - lastSync);
        return staleSince == 0
                ? new ViewStatus(false, Duration.ZERO, lastSyncAt, restoredFromDisk)
                : new ViewStatus(true, Duration.ofNanos(now - staleSince), lastSyncAt, restoredFromDisk);
    }

    /** Nanoseconds since the view last heard from Redis, or -1 if never. */
    long nanosSinceLastSync() {
        long lastSync = lastSyncNanos;
        return lastSync == 0 ? -1 : System.nanoTime() - lastSync;
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
     * Loads a topic without blocking: completes (bounded by twice the command timeout) with its value, or with a
     * Lodestar exception, on the view thread; callers hand user code over to another executor. A failure is never
     * cached: the next read tries again.
     */
    CompletableFuture<Versioned<V>> loadAsync(String id) {
        requireOpen();
        Topic topic = topics.get(id, this::create);
        CompletableFuture<Versioned<V>> attempt = new CompletableFuture<>();
        executeOrClosed(() -> {
            Versioned<V> current = topic.current;
            if (current != null) {
                attempt.complete(current);
            } else {
                sync(topic).whenComplete((loaded, failure) -> {
                    if (failure == null) {
                        attempt.complete(loaded);
                    } else {
                        attempt.completeExceptionally(failure);
                    }
                });
            }
        });
        CompletableFuture<Versioned<V>> result = new CompletableFuture<>();
        attempt.orTimeout(timeout.toMillis() * 2, TimeUnit.MILLISECONDS).whenComplete((loaded, failure) -> {
            if (failure == null) {
                result.complete(loaded);
                return;
            }
            if (topic.current == null && !topic.pinned()) {
                remove(id, topic);
            }
            result.completeExceptionally(Errors.translate(failure, "load " + name + " '" + id + "'",
                    backend.where(), timeout));
        });
        return result;
    }

    // ---------------------------------------------------------------- listeners

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
        requireOpen();
        Topic topic = topics.get(id, this::create);
        Listener slot = new Listener(listener, onStart, new SerialExecutor(executor));
        topic.listeners.add(slot);
        pin(id, topic);
        viewThread.execute(() -> {
            if (topic.current != null) {
                slot.start(topic.current);
            } else if (!topic.syncing) {
                sync(topic);
            }
        });
        return () -> {
            if (topic.listeners.remove(slot)) {
                pin(id, topic);
            }
        };
    }

    private void pin(String id, Topic topic) {
        topics.policy().expireVariably().ifPresent(expiry -> {
            if (topics.asMap().get(id) == topic) {
                expiry.setExpiresAfter(id, topic.pinned() ? Duration.ofNanos(Long.MAX_VALUE)
                        : Duration.ofNanos(idleNanos));
            }
        });
    }

    // ---------------------------------------------------------------- events (view thread)

    /** Routes a PubSub message; called on Lettuce's I/O thread, so it only hands over. */
    boolean offer(String channel, Map<String, Object> fields) {
        Topic topic = byChannel.get(channel);
        if (topic == null) {
            return false;
        }
        Object rev = fields.get("rev");
        if (!(rev instanceof Integer || rev instanceof Long) || ((Number) rev).longValue() < 1) {
            reject(topic.id, fields, "its revision is not a positive 64-bit integer");
            return true;
        }
        long revision = ((Number) rev).longValue();
        viewThread.execute(() -> onMessage(topic, new Message(revision, fields)));
        return true;
    }

    /**
     * Drops an event no writer of Lodestar can have published (anyone allowed to publish on the channel can forge
     * one): counted in {@link #rejected}, logged at WARN (the first, then every 1000th, so a flood cannot flood the
     * log), never buffered, never a reason to resync.
     */
    private void reject(String id, Map<String, Object> fields, String why) {
        rejected.increment();
        long count = rejected.sum();
        if (count == 1 || count % 1000 == 0) {
            log.warn("{} {}: dropped an event because {} ({} dropped so far; forged, or written by another"
                    + " program?): {}", name, Validation.show(id), why, count, Validation.show(fields));
        }
    }

    private void onMessage(Topic topic, Message message) {
        if (closed || readable.get(topic.id) != topic) {
            return;
        }
        lastSyncNanos = System.nanoTime();
        Versioned<V> current = topic.current;
        if (current != null && message.revision - current.revision > MAX_REVISION_STEP) {
            reject(topic.id, message.fields, "its revision " + message.revision + " is impossibly far past the held "
                    + current.revision);
            return;
        }
        if (topic.syncing) {
            topic.buffer.add(message);
            return;
        }
        if (current == null || message.revision <= current.revision) {
            return;
        }
        if (message.revision > current.revision + 1) {
            gaps.increment();
            log.debug("{} '{}': revision gap ({} after {}), resyncing", name, topic.id, message.revision,
                    current.revision);
            topic.buffer.add(message);
            sync(topic);
            return;
        }
        applyOne(topic, message);
    }

    private void applyOne(Topic topic, Message message) {
        Applied<V, E> applied;
        try {
            applied = source.apply(topic.id, topic.current, message);
        } catch (RuntimeException malformed) { // the held value stays; the real event of this revision still fits
            reject(topic.id, message.fields, "it is malformed (" + malformed.getMessage() + ")");
            return;
        }
        topic.current = new Versioned<>(message.revision, applied.value());
        eventsApplied.increment();
        dispatch(topic, applied.event());
        topic.releaseWaiters();
    }

    private void dispatch(Topic topic, E event) {
        if (event != null) {
            for (Listener listener : topic.listeners) {
                if (listener.started) {
                    listener.executor.execute(() -> listener.consumer.accept(event));
                }
            }
        }
    }

    /**
     * Completes (bounded by the command timeout, never exceptionally) when the topic, if held, reflects at least
     * {@code revision}: read-your-writes for this client's own writes. If the event does not arrive quickly, the
     * topic is re-read.
     */
    CompletableFuture<Void> awaitRevision(String id, long revision) {
        Topic topic = topics.getIfPresent(id);
        if (topic == null || topic.current == null || topic.current.revision >= revision) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> reached = new CompletableFuture<>();
        viewThread.execute(() -> {
            if (topic.current == null || topic.current.revision >= revision) {
                reached.complete(null);
                return;
            }
            topic.waiters.add(new Waiter(revision, reached));
            scheduler.schedule(() -> viewThread.execute(() -> {
                if (!reached.isDone() && !topic.syncing) {
                    sync(topic);
                }
            }), 50, TimeUnit.MILLISECONDS);
        });
        return reached.completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
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

    /** The value if held (no loading, no allocation), else null. */
    V getIfHeld(String id) {
        Topic topic = readable.get(id);
        if (topic != null) {
            Versioned<V> current = topic.current;
            if (current != null) {
                long now = tick;
                if (topic.readAt != now) { // at most once per tick: tells Caffeine the topic is still in use
                    topic.readAt = now;
                    topics.getIfPresent(id);
                }
                reads.increment();
                return current.value;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- sync (view thread)

    /** Subscribes (again), loads, and applies what was buffered meanwhile. */
    private CompletableFuture<Versioned<V>> sync(Topic topic) {
        if (topic.syncing) {
            return topic.attempt;
        }
        topic.syncing = true;
        topic.heardBeforeLoad = topic.buffer.size();
        topic.attempt = new CompletableFuture<>();
        CompletableFuture<Versioned<V>> attempt = topic.attempt;
        Versioned<V> held = topic.current;
        long epoch = disconnects.get();
        if (held != null || topic.pinned()) {
            resyncsInFlight++;
            peakResyncsInFlight = Math.max(peakResyncsInFlight, resyncsInFlight);
            attempt.whenComplete((value, failure) -> { // on the view thread: finishSync completes it
                resyncsInFlight--;
                startWaitingResyncs();
            });
        }
        byChannel.put(topic.channel, topic);
        backend.subscribe(topic.channel)
                .thenCompose(subscribed -> held == null
                        ? source.load(topic.id).thenApply(loaded -> new Reloaded<V, E>(loaded, null))
                        : source.reload(topic.id, held))
                .whenComplete((reloaded, failure) -> viewThread.execute(() -> finishSync(topic, attempt, held,
                        epoch, reloaded, failure)));
        return attempt;
    }

    private void finishSync(Topic topic, CompletableFuture<Versioned<V>> attempt, Versioned<V> held, long epoch,
                            Reloaded<V, E> reloaded, Throwable failure) {
        topic.syncing = false;
        if (closed || readable.get(topic.id) != topic) {
            attempt.completeExceptionally(closed ? backend.closedException() : new LodestarException("view closed"));
            return;
        }
        if (failure != null) {
            Versioned<V> restored = topic.current == null ? restore(topic, failure) : null;
            if (restored != null) {
                topic.current = restored;
                topic.startListeners();
                attempt.complete(restored);
            } else {
                attempt.completeExceptionally(failure);
            }
            retryLater(topic, failure);
            return;
        }
        topic.failures = 0;
        topic.loadedEpoch = epoch;
        lastSyncNanos = System.nanoTime();
        Versioned<V> before = topic.current;
        Versioned<V> loaded = reloaded.value();
        topic.current = loaded;
        topic.startListeners();
        if (before != null) {
            resyncs.increment();
            if (reloaded.events() != null && before == held) {
                reloaded.events().forEach(event -> dispatch(topic, event));
            } else {
                dispatch(topic, source.resynced(topic.id, before, loaded));
            }
        }
        // An event heard before this load started was published after Redis counted its revision (the scripts
        // count, then publish): if the load found less, Redis never had it. Keeping it would resync for ever.
        List<Message> buffered = new ArrayList<>();
        for (int i = 0; i < topic.buffer.size(); i++) {
            Message message = topic.buffer.get(i);
            if (i < topic.heardBeforeLoad && message.revision > loaded.revision()) {
                reject(topic.id, message.fields, "its revision " + message.revision + " is past the "
                        + loaded.revision() + " Redis holds");
            } else {
                buffered.add(message);
            }
        }
        topic.buffer.clear();
        buffered.sort(Comparator.comparingLong(Message::revision));
        for (Message message : buffered) {
            long next = topic.current.revision + 1;
            if (message.revision < next) {
                continue;
            }
            if (message.revision > next) {
                gaps.increment();
                topic.buffer.addAll(buffered.subList(buffered.indexOf(message), buffered.size()));
                sync(topic); // after the buffer is filled: these were heard before the next load
                break;
            }
            applyOne(topic, message);
        }
        topic.releaseWaiters();
        attempt.complete(topic.current);
        if (!anySyncing()) {
            staleSinceNanos = backend.isConnected() ? 0 : staleSinceNanos;
        }
    }

    /** The source's local copy, when the load failed because Redis cannot be reached; else null. */
    private Versioned<V> restore(Topic topic, Throwable failure) {
        if (!(Errors.translate(failure, "load", backend.where(), timeout) instanceof UnavailableException)) {
            return null;
        }
        try {
            Versioned<V> restored = source.restore(topic.id);
            if (restored != null) {
                markRestoredFromDisk();
                markStale();
                log.warn("{} '{}': Redis at {} cannot be reached ({}); serving revision {} from the local snapshot"
                        + " until it can", name, topic.id, backend.where(), Errors.unwrap(failure).toString(),
                        restored.revision());
            }
            return restored;
        } catch (RuntimeException e) {
            log.warn("{} '{}': cannot restore the local snapshot: {}", name, topic.id, e.toString());
            return null;
        }
    }

    private void retryLater(Topic topic, Throwable failure) {
        topic.failures++;
        if (topic.current == null && !topic.pinned()) {
            return; // nobody waits for it: the next read starts over
        }
        long backoff = Math.min(MAX_BACKOFF_MS, 100L << Math.min(topic.failures, 10));
        long delay = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
        log.debug("{} '{}' could not be loaded ({}), retrying in {} ms", name, topic.id, failure.toString(), delay);
        scheduler.schedule(() -> viewThread.execute(() -> resyncWhenFree(List.of(topic))), delay,
                TimeUnit.MILLISECONDS);
    }

    private boolean anySyncing() {
        if (!waitingResyncs.isEmpty()) {
            return true;
        }
        for (Topic topic : readable.values()) {
            if (topic.syncing) {
                return true;
            }
        }
        return false;
    }

    /**
     * After a reconnect: every topic loaded before the last disconnect may have missed events, or Redis may have
     * restarted (one loaded since then is current, and re-reading it could only skip events still in flight).
     */
    void resyncAll() {
        viewThread.execute(() -> {
            long epoch = disconnects.get();
            resyncWhenFree(readable.values().stream().filter(topic -> !topic.syncing
                    && (topic.current != null || topic.pinned()) && topic.loadedEpoch < epoch).toList());
            if (!anySyncing() && backend.isConnected()) {
                staleSinceNanos = 0;
            }
        });
    }

    /** Queues topics for a resync (view thread); they start as soon as fewer than the bound are in flight. */
    private void resyncWhenFree(List<Topic> due) {
        waitingResyncs.addAll(due);
        startWaitingResyncs();
    }

    private void startWaitingResyncs() {
        Iterator<Topic> waiting = waitingResyncs.iterator();
        while (resyncsInFlight < MAX_CONCURRENT_RESYNCS && waiting.hasNext()) {
            Topic topic = waiting.next();
            waiting.remove();
            if (!closed && !topic.syncing && readable.get(topic.id) == topic) {
                sync(topic);
            }
        }
    }

    /** Compares every held topic's revision with Redis; resyncs those that differ. */
    void reconcile() {
        for (Topic topic : readable.values()) {
            Versioned<V> held = topic.current;
            if (held == null || topic.syncing) {
                continue;
            }
            source.revision(topic.id).whenComplete((revision, failure) -> viewThread.execute(() -> {
                if (failure == null) {
                    lastSyncNanos = System.nanoTime();
                    if (!topic.syncing && topic.current != null && topic.current.revision != revision) {
                        log.debug("{} '{}': reconcile found revision {} but holds {}", name, topic.id, revision,
                                topic.current.revision);
                        sync(topic);
                    }
                }
            }));
        }
    }

    /** A closed view is empty, so every read would load: it says the client is closed instead. */
    private void requireOpen() {
        if (closed) {
            throw backend.closedException();
        }
    }

    /** Runs on the view thread; the client may be closing, and its stopped thread rejects the task. */
    private void executeOrClosed(Runnable task) {
        try {
            viewThread.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw backend.closedException();
        }
    }

    void markStale() {
        disconnects.incrementAndGet();
        if (staleSinceNanos == 0) {
            staleSinceNanos = System.nanoTime();
        }
    }

    void markRestoredFromDisk() {
        restoredFromDisk = true;
    }

    private void drop(Topic topic) {
        if (byChannel.remove(topic.channel, topic) && !closed) {
            backend.unsubscribe(topic.channel).whenComplete((ok, failure) -> {
                if (failure != null) {
                    log.debug("Could not unsubscribe {}: {}", topic.channel, failure.toString());
                }
            });
        }
    }

    @Override
    public void close() {
        closed = true;
        ticking.cancel(false);
        topics.invalidateAll();
        readable.clear();
    }

    // ---------------------------------------------------------------- state of one topic

    private final class Topic {
        final String id;
        final String channel;
        final List<Listener> listeners = new CopyOnWriteArrayList<>();
        /** The {@link #tick} of the last read reported to Caffeine; racy on purpose (a lost update costs nothing). */
        long readAt = -1;
        /** Written on the view thread only, read anywhere. */
        volatile Versioned<V> current;
        // view thread only:
        boolean syncing;
        CompletableFuture<Versioned<V>> attempt = new CompletableFuture<>();
        final List<Message> buffer = new ArrayList<>();
        /** How many of {@link #buffer} were heard before the current load started. */
        int heardBeforeLoad;
        final List<Waiter> waiters = new ArrayList<>();
        int failures;
        /** The disconnect count when its last successful load started; -1 while it has none from Redis. */
        long loadedEpoch = -1;

        Topic(String id) {
            this.id = id;
            this.channel = source.channel(id);
        }

        boolean pinned() {
            return !listeners.isEmpty();
        }

        /** Starts the listeners that waited for the first value (view thread). */
        void startListeners() {
            for (Listener listener : listeners) {
                if (!listener.started) {
                    listener.start(current);
                }
            }
        }

        void releaseWaiters() {
            Versioned<V> now = current;
            if (now != null) {
                waiters.removeIf(waiter -> {
                    if (now.revision >= waiter.revision) {
                        waiter.reached.complete(null);
                        return true;
                    }
                    return false;
                });
            }
        }
    }

    private record Waiter(long revision, CompletableFuture<Void> reached) {
    }

    /** One listener: events reach it in order on its own serial executor, from the value it started at. */
    private final class Listener {
        final Consumer<E> consumer;
        final Consumer<Versioned<V>> onStart;
        final Executor executor;
        /** View thread only: events are dispatched once the listener knows the value they follow. */
        boolean started;

        Listener(Consumer<E> consumer, Consumer<Versioned<V>> onStart, Executor executor) {
            this.consumer = consumer;
            this.onStart = onStart;
            this.executor = executor;
        }

        void start(Versioned<V> value) {
            if (!started) {
                started = true;
                if (onStart != null) {
                    executor.execute(() -> onStart.accept(value));
                }
            }
        }
    }
}
