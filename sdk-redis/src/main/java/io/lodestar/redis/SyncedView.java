package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.lodestar.core.ClientClosedException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.UnavailableException;
import io.lodestar.redis.ViewSource.Batch;
import io.lodestar.redis.ViewSource.Message;
import io.lodestar.redis.ViewSource.Reloaded;
import io.lodestar.redis.internal.time.Clock;
import io.lodestar.redis.internal.view.Admission;
import io.lodestar.redis.internal.view.ChannelRouter;
import io.lodestar.redis.internal.view.Deadlines;
import io.lodestar.redis.internal.view.EventOrder;
import io.lodestar.redis.internal.view.Handover;
import io.lodestar.redis.internal.view.Inbox;
import io.lodestar.redis.internal.view.Kept;
import io.lodestar.redis.internal.view.ViewLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * A local copy of a set of topics (the services, config entries or index of a namespace) kept current by PubSub.
 * Built once, used for discovery, config and the service index; what a topic is comes from a {@link ViewSource}.
 *
 * <p>Reads are lock-free: each topic's current value is an immutable object behind a volatile field, swapped
 * whole. Every change of state runs on one view thread, so events of a topic are applied in revision order and a
 * late re-read can never bring back an old state. The events of a topic that wait for the view thread are applied
 * together, each checked as if alone: one new value per batch (see {@link Batch}), so a view that falls behind a
 * burst of writes catches up instead of copying a large topic once per event; listeners still get every event, in
 * order. The rules that make a view converge:
 * <ul>
 *   <li>a topic is subscribed <em>before</em> it is loaded; events that arrive meanwhile are buffered and the ones
 *       newer than the load are applied after it;</li>
 *   <li>an event whose revision skips one (a lost message) makes the topic resync (re-read; a source that keeps
 *       history can replay what was missed to the listeners, see {@link ViewSource#reload});</li>
 *   <li>every reconnect resubscribes and resyncs every topic loaded before the disconnect (Redis may have
 *       restarted: revisions can go back), bounded (see {@link Admission}): at most
 *       {@link ViewLimits#maxConcurrentResyncs} at once, or for a source that loads in batches
 *       ({@link ViewSource#group}) in batches, at most {@link ViewLimits#maxTopicsInFlight} topics at once (and one
 *       more batch);</li>
 *   <li>a periodic reconcile compares each topic's revision with Redis and resyncs those that differ;</li>
 *   <li>a failed load is retried with backoff while anyone needs the topic; a failure is never cached;</li>
 *   <li>a first load that fails because Redis cannot be reached may serve the source's local copy
 *       ({@link ViewSource#restore}), flagged in {@link ViewReads#status()}, until a retry or reconnect reads Redis;
 *       that read loads the topic whole (Redis may have lost the restored value and been written again since) and hands
 *       listeners the difference;</li>
 *   <li>an event of another incarnation than the held value's (the keys were lost and written again), or a
 *       {@code purged} event, makes the topic load whole, whatever its revision;</li>
 *   <li>a load that finds the keys written anew (Redis lost its data) lacking items the view held from Redis keeps
 *       serving those items, the view marked stale, until their owners had the time to write them again (see
 *       {@link LostItems}, {@link ViewSource#lost}); items written again in time were never gone for listeners, the others
 *       leave one by one when their time is up.</li>
 * </ul>
 * Topics nobody read for the idle timeout are dropped and unsubscribed (Caffeine's expiry), and so is the topic
 * read least recently when a new one passes the view's limit of topics; topics with listeners are kept.
 *
 * <p>This class is the sync state machine (subscribe, load, buffer, resync): it acts on the decisions of parts that
 * live in classes of their own. In {@code io.lodestar.redis.internal.view} (no Redis), each with its own unit test:
 * {@link EventOrder} (where an event stands against the held value), {@link Admission} (how many topics load at
 * once), {@link Inbox} and {@link Handover} (the I/O thread's hand-over to the view thread), {@link ChannelRouter}
 * (which topic a channel belongs to), {@link Deadlines} (the bound of a load or a wait), {@link Kept} (what a topic
 * keeps serving after Redis lost its data, and until when) and {@link ViewLimits} (every bound). Beside it:
 * {@link ViewReads} (the reads and listeners applications go through), {@link ViewEvents} (the event path: check,
 * buffer, apply in batches), {@link LostItems} (what a topic keeps serving after Redis lost its keys, on the clock),
 * {@link ViewTopic} (one topic's state), {@link TopicTable} (the topics by id, idle
 * expiry, pins), {@link ViewListener} (one listener's bounded queue and catch-up),
 * {@link RevisionWaiters} (read-your-writes) and {@link ViewHealth} (staleness, last sync). Time and scheduling come
 * from a {@link Clock} only, so its tests move a manual clock instead of waiting.
 *
 * @param <V> the value of one topic (immutable)
 * @param <E> the event listeners get
 */
final class SyncedView<V, E> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SyncedView.class);
    /** The bounds of every view of the client; a batch of topics is at most what one batched read takes. */
    static final ViewLimits LIMITS = ViewLimits.defaults(RegistryReads.MAX_BATCH_SERVICES);

    /**
     * What the views of one client share: the connection, the router of their channels, their threads, their clock
     * and their bounds.
     *
     * @param transport       the Redis connections
     * @param router          routes each PubSub message to the topic that follows its channel
     * @param viewThread      applies every change of every view, in order
     * @param listenerPool    runs listeners (each serially)
     * @param clock           the only source of time and delayed execution
     * @param random          the jitter of retries
     * @param limits          the bounds (see {@link ViewLimits})
     * @param idleTimeout     how long a topic nobody reads is kept
     * @param topicLimit      how many topics a view holds before a new one drops the one read least recently
     * @param expiryScheduler when Caffeine looks for idle topics on its own; {@link Scheduler#disabledScheduler()}
     *                        leaves it to {@link #cleanUp()}
     */
    record Shared(Transport transport, ChannelRouter router, Executor viewThread, Executor listenerPool, Clock clock,
                  RandomGenerator random, ViewLimits limits, Duration idleTimeout, int topicLimit,
                  Scheduler expiryScheduler) {
    }

    /**
     * What a view needs of the Redis connections: shard subscriptions and the connection's state. {@link RedisBackend}
     * in production; a fake in the view's unit tests.
     */
    interface Transport {
        /** Subscribes a shard channel; completes when Redis confirmed. */
        CompletionStage<Void> subscribe(String channel);

        /**
         * Subscribes several shard channels (the channels of one {@link ViewSource#group}), in as few calls as the
         * transport can (one per cluster slot); completes when Redis confirmed them all. By default one by one.
         */
        default CompletionStage<Void> subscribe(List<String> channels) {
            return CompletableFuture.allOf(channels.stream().map(channel -> subscribe(channel).toCompletableFuture())
                    .toArray(CompletableFuture[]::new));
        }

        CompletionStage<Void> unsubscribe(String channel);

        boolean isConnected();

        /**
         * Whether every subscription a lost connection took along is reported once it is in place again, channel by
         * channel ({@link ChannelRouter#resubscribed}: a cluster re-homes each one). Then only the topics reported
         * resync after a drop, each once. Otherwise (standalone: Lettuce renews every subscription itself, unreported)
         * every topic loaded before the drop resyncs when the connection is back.
         */
        boolean reportsResubscriptions();

        /** The command timeout: what bounds a load. */
        Duration timeout();

        /** The redacted address, for messages. */
        String where();

        /** What every call on a closed client throws. */
        ClientClosedException closedException();
    }

    /**
     * A value at a revision; {@code digest} is the last change's own (null when the source keeps none): two values
     * at one revision with different digests are not the same state. {@code incarnation} names the keys the
     * revision counts in (null when unknown: the source keeps none, or nothing was written yet); revisions of two
     * incarnations cannot be compared (see common.lua).
     */
    record Versioned<V>(long revision, V value, String digest, String incarnation) implements EventOrder.Stamp {
        Versioned(long revision, V value) {
            this(revision, value, null, null);
        }

        Versioned(long revision, V value, String digest) {
            this(revision, value, digest, null);
        }

        /** Whether this value counts its revision in other keys than {@code incarnation} (both known). */
        boolean otherIncarnation(String incarnation) {
            return EventOrder.otherIncarnation(this, incarnation);
        }
    }

    /** Counters for metrics; reads without an atomic write per read (see {@link ReadCounter}). */
    final ReadCounter reads = new ReadCounter();
    final LongAdder eventsApplied = new LongAdder();
    /** New values published by events: one per batch, however many events it held (tests). */
    final LongAdder swaps = new LongAdder();
    final LongAdder resyncs = new LongAdder();
    final LongAdder gaps = new LongAdder();
    /** Events that came from other keys than the held ones (lost and written again): each made its topic resync. */
    final LongAdder incarnations = new LongAdder();
    /**
     * Loads that found a topic's keys written anew with fewer items than the view held: each kept serving them (see
     * {@link LostItems}).
     */
    final LongAdder dataLosses = new LongAdder();
    /** Events dropped by a bound (the view thread's inbox, a topic's load buffer, a listener's queue). */
    final LongAdder overflows = new LongAdder();
    /** Events dropped as impossible (forged or corrupt): see {@link ViewEvents#reject}. */
    final LongAdder rejected = new LongAdder();
    /** Topics dropped because the view held its limit of topics (see {@link TopicTable}). */
    final LongAdder limitDrops = new LongAdder();

    private final String name;
    private final ViewSource<V, E> source;
    private final Transport backend;
    private final ChannelRouter router;
    private final Executor viewThread;
    private final Executor listenerPool;
    private final Clock clock;
    private final RandomGenerator random;
    private final ViewLimits limits;
    private final EventOrder order;
    private final Inbox inbox;
    /** The topics by id; expires idle ones. */
    private final TopicTable<ViewTopic<V, E>, V> topics;
    private final Duration timeout;
    private final ViewHealth health;
    /** The deadlines of pending loads and read-your-writes waits, on {@link #clock}. */
    private final Deadlines deadlines;
    /** What reads and listeners go through. */
    private final ViewReads<V, E> api;
    /** The event path: checks and applies the events of each topic. */
    private final ViewEvents<V, E> events;
    /** What topics keep serving after Redis lost their keys (see {@link LostItems}). */
    private final LostItems<V, E> lostItems;
    private volatile boolean closed;
    // view thread only:
    /** Topics waiting to load, and how many load now. */
    private final Admission<ViewTopic<V, E>> admission;
    /** Topics whose sync began and has not ended ({@link ViewTopic#syncing}), live or not. */
    private int syncsUnderWay;
    /** A start of the queued resyncs is queued on the view thread (see {@link #startQueuedResyncsSoon}). */
    private boolean startQueued;

    SyncedView(String name, ViewSource<V, E> source, Shared shared) {
        this.name = name;
        this.source = source;
        this.backend = shared.transport();
        this.router = shared.router();
        this.viewThread = shared.viewThread();
        this.listenerPool = shared.listenerPool();
        this.clock = shared.clock();
        this.random = shared.random();
        this.limits = shared.limits();
        this.order = new EventOrder(limits.maxRevisionStep());
        this.inbox = new Inbox(viewThread, limits);
        this.admission = new Admission<>(limits);
        this.timeout = backend.timeout();
        this.health = new ViewHealth(clock);
        this.deadlines = new Deadlines(clock);
        int topicLimit = shared.topicLimit();
        this.topics = new TopicTable<>(id -> new ViewTopic<>(id, this), shared.idleTimeout(), topicLimit, clock,
                shared.expiryScheduler(), topic -> {
                    if (!closed) { // on close the connection goes anyway: nothing to unsubscribe
                        viewThread.execute(() -> drop(topic));
                    }
                }, topic -> droppedForLimit(topic, topicLimit));
        this.api = new ViewReads<>(this, topics, health, deadlines, shared);
        this.events = new ViewEvents<>(this, source, topics, health, order, limits);
        this.lostItems = new LostItems<>(this, source, topics, health, clock);
    }

    /** Counts and logs (the first, then every 1,000th) a topic dropped because the view held its limit. */
    private void droppedForLimit(ViewTopic<V, E> topic, int limit) {
        limitDrops.increment();
        long count = limitDrops.sum();
        if (count == 1 || count % 1000 == 0) {
            log.warn("{} view holds its limit of {} entries (viewTopicLimit): dropped {}, the one read least"
                    + " recently ({} dropped so far; reads of ever new ids, e.g. taken from requests?)", name, limit,
                    Validation.show(topic.id), count);
        }
    }

    /**
     * Drops (and unsubscribes) a topic nobody listens to whose value is {@code unneeded}, at once rather than once it
     * is idle: e.g. a config the namespace index announced that Redis does not hold (removed since, or forged). A
     * topic whose first load is under way (a read may wait for it) is decided when that load ends: dropped then if
     * it loaded an unneeded value, or none; one without a value and no load under way is dropped at once. On the
     * view thread, where loads end, so a release never misses the end of the load it waits for.
     */
    void release(String id, Predicate<V> unneeded) {
        ViewTopic<V, E> topic = topics.live(id);
        if (topic != null) {
            try {
                viewThread.execute(() -> releaseIfUnneeded(topic, unneeded));
            } catch (RejectedExecutionException closing) {
                // the view closes: its topics go with it
            }
        }
    }

    /** See {@link #release} (view thread). */
    private void releaseIfUnneeded(ViewTopic<V, E> topic, Predicate<V> unneeded) {
        if (topic.syncing && topic.current == null) {
            topic.releaseWhenLoaded = unneeded; // see finishSync
            return;
        }
        topics.removeIf(topic.id, topic, held -> !held.pinned() && (held.current == null
                || unneeded.test(held.current.value)));
    }

    /** Removes a topic that failed its first load, unless a listener attached meanwhile (atomically with it). */
    void removeUnpinned(String id, ViewTopic<V, E> topic) {
        topics.removeIf(id, topic, held -> held.current == null && !held.pinned());
    }

    /** What applications' reads and listeners go through. */
    ViewReads<V, E> api() {
        return api;
    }

    /** The event path (see {@link ViewTopic}). */
    ViewEvents<V, E> events() {
        return events;
    }

    /** Runs pending expiry now (tests; Caffeine otherwise does it on its own schedule). */
    void cleanUp() {
        topics.cleanUp();
    }

    /** The most batches loading at once so far (tests). */
    int peakBatchesInFlight() {
        return admission.peakBatchesInFlight();
    }

    /** The most topics of batches loading at once so far (tests). */
    int peakBatchTopicsInFlight() {
        return admission.peakBatchTopicsInFlight();
    }

    int size() {
        return topics.size();
    }

    /** Nanoseconds since the view last heard from Redis, or -1 if never. */
    long nanosSinceLastSync() {
        return health.nanosSinceLastSync();
    }

    // ---------------------------------------------------------------- sync (view thread)

    /** Subscribes (again), loads, and applies what was buffered meanwhile. */
    CompletableFuture<Versioned<V>> sync(ViewTopic<V, E> topic) {
        if (topic.syncing) {
            return topic.attempt;
        }
        Versioned<V> held = topic.current;
        long epoch = health.epoch();
        CompletableFuture<Versioned<V>> attempt = begin(topic);
        // A held value Redis never had cannot be the start of a replay (config history): load it whole.
        boolean replay = held != null && !topic.untrusted;
        backend.subscribe(topic.channel)
                .thenCompose(subscribed -> !replay
                        ? source.load(topic.id).thenApply(loaded -> new Reloaded<V, E>(loaded, null))
                        : source.reload(topic.id, held))
                .whenComplete((reloaded, failure) -> viewThread.execute(() -> finishSync(topic, attempt, held,
                        epoch, reloaded, failure)));
        return attempt;
    }

    /**
     * Subscribes and loads topics of one group together (a batching source): one subscribe of all their channels,
     * then the source's batched load; each topic then ends as {@link #sync} ends it. Every guarantee of a sync
     * holds per topic: subscribed before loaded, events heard meanwhile buffered and applied after the loaded
     * revision, a gap or another incarnation read again.
     */
    private void syncBatch(List<ViewTopic<V, E>> batch) {
        List<ViewTopic<V, E>> started = new ArrayList<>(batch.size());
        List<CompletableFuture<Versioned<V>>> attempts = new ArrayList<>(batch.size());
        List<Versioned<V>> helds = new ArrayList<>(batch.size());
        List<Versioned<V>> trusted = new ArrayList<>(batch.size());
        long epoch = health.epoch();
        for (ViewTopic<V, E> topic : batch) {
            if (!topic.syncing) {
                helds.add(topic.current);
                // a value with kept items is not Redis' state: read it whole, so the kept items are weighed again
                trusted.add(topic.untrusted || topic.kept != null ? null : topic.current);
                attempts.add(begin(topic));
                started.add(topic);
            }
        }
        if (started.isEmpty()) {
            return;
        }
        admission.batchStarted(started.size());
        List<String> channels = started.stream().map(topic -> topic.channel).toList();
        List<String> ids = started.stream().map(topic -> topic.id).toList();
        CompletableFuture.completedFuture(null)
                .thenCompose(ignored -> backend.subscribe(channels))
                .whenComplete((subscribed, failedSubscribe) -> {
                    List<CompletableFuture<Versioned<V>>> loads = new ArrayList<>(ids.size());
                    Throwable failure = failedSubscribe;
                    if (failure == null) {
                        try {
                            source.loadAll(ids, trusted).forEach(load -> loads.add(load.toCompletableFuture()));
                        } catch (RuntimeException e) { // e.g. the client closed
                            loads.clear();
                            failure = e;
                        }
                    }
                    Handover finished = new Handover(viewThread,
                            e -> log.error("{}: a finished load could not be taken in", name, e));
                    for (int i = 0; i < started.size(); i++) {
                        ViewTopic<V, E> topic = started.get(i);
                        CompletableFuture<Versioned<V>> attempt = attempts.get(i);
                        Versioned<V> held = helds.get(i);
                        CompletableFuture<Versioned<V>> load = failure == null ? loads.get(i)
                                : CompletableFuture.failedFuture(failure);
                        load.whenComplete((loaded, failed) -> finished.add(() -> finishSync(topic, attempt, held,
                                epoch, failed == null ? new Reloaded<>(loaded, null) : null, failed)));
                    }
                    CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new)).whenComplete((all, any) ->
                            viewThread.execute(() -> {
                                admission.batchEnded(started.size());
                                startWaitingResyncs();
                            }));
                });
    }

    /** Marks a topic syncing (view thread): the attempt its load will complete. */
    private CompletableFuture<Versioned<V>> begin(ViewTopic<V, E> topic) {
        topic.syncing = true;
        syncsUnderWay++;
        topic.heardBeforeLoad = topic.buffer.size();
        topic.attempt = new CompletableFuture<>();
        CompletableFuture<Versioned<V>> attempt = topic.attempt;
        if (topic.current != null || topic.pinned()) { // a resync; first reads of a topic are not counted
            admission.resyncStarted();
            attempt.whenComplete((value, failure) -> { // on the view thread: finishSync completes it
                admission.resyncEnded();
                startWaitingResyncs();
            });
        }
        router.follow(topic.channel, topic);
        if (topic.queuedLoadOnly) { // queued by a preload, loading now by another way: its turn is not needed
            admission.unqueue(topic.group, topic);
        }
        topic.queuedLoadOnly = false;
        List<CompletableFuture<Versioned<V>>> waiting = topic.waiting;
        if (waiting != null) {
            topic.waiting = null;
            attempt.whenComplete((value, failure) -> waiting.forEach(waiter -> settle(waiter, value, failure)));
        }
        return attempt;
    }

    private static <T> void settle(CompletableFuture<T> waiter, T value, Throwable failure) {
        if (failure == null) {
            waiter.complete(value);
        } else {
            waiter.completeExceptionally(failure);
        }
    }

    private void finishSync(ViewTopic<V, E> topic, CompletableFuture<Versioned<V>> attempt, Versioned<V> held,
                            long epoch, Reloaded<V, E> reloaded, Throwable failure) {
        topic.syncing = false;
        syncsUnderWay--;
        if (closed || !topics.isLive(topic)) {
            if (!closed) {
                unsubscribeDead(topic);
            }
            attempt.completeExceptionally(closed ? backend.closedException() : new LodestarException("view closed"));
            return;
        }
        Predicate<V> release = topic.releaseWhenLoaded;
        topic.releaseWhenLoaded = null;
        if (release != null) { // once this sync has ended, whatever its outcome
            attempt.whenComplete((value, failed) -> releaseIfUnneeded(topic, release));
        }
        if (failure != null) {
            Versioned<V> restored = topic.current == null ? restore(topic, failure) : null;
            if (restored != null) {
                topic.holdRestored(restored);
                // Redis may have lost it and been written again since: the first load from Redis reads it whole
                // (no replay from it) and tells listeners what differs from it.
                topic.untrusted = true;
                topic.startListeners();
                attempt.complete(restored);
            } else {
                attempt.completeExceptionally(failure);
            }
            retryLater(topic, failure);
            return;
        }
        topic.failures = 0;
        topic.untrusted = false;
        topic.loadedEpoch = epoch;
        boolean syncAgain = topic.syncAgain;
        topic.syncAgain = false;
        health.heard();
        Versioned<V> before = topic.current;
        Versioned<V> loaded = lostItems.afterLoad(topic, before, reloaded.value());
        topic.hold(loaded);
        topic.startListeners();
        if (before != null) {
            resyncs.increment();
            if (reloaded.events() != null && before == held && !held.otherIncarnation(loaded.incarnation())) {
                events.dispatch(topic, reloaded.events());
            } else if (!topic.listeners.isEmpty()) { // the event is for listeners only, and a diff of the whole topic
                events.dispatch(topic, source.resynced(topic.id, before, loaded));
            }
        }
        EventOrder.AfterLoad<Message> kept = order.afterLoad(topic.buffer, topic.heardBeforeLoad, loaded);
        topic.buffer.clear();
        kept.impossible().forEach(message -> events.reject(topic.id, message.fields(), "its revision "
                + message.revision() + " is past the " + loaded.revision() + " Redis holds"));
        int applied = kept.next().isEmpty() ? 0 : events.applyAll(topic, kept.next());
        if (applied < kept.next().size()) { // one could not be applied: the topic resyncs, and keeps what came after
            topic.buffer.addAll(kept.after(kept.next().get(applied)));
        } else if (kept.gapAt() >= 0) {
            gaps.increment();
            topic.buffer.addAll(kept.fromGap());
            sync(topic); // after the buffer is filled: these were heard before the next load
        }
        // Load again when the connection dropped after this load started (it may have read Redis before changes it
        // then missed) and is back: a reconnect that came while it was under way skipped it.
        boolean missedDuringLoad = epoch < health.epoch() && backend.isConnected();
        if ((syncAgain || kept.keysChangedAgain() || missedDuringLoad) && !topic.syncing) {
            if (topic.group != null && !kept.keysChangedAgain()) {
                // a batching source's topic synced again because its subscription was renewed or the connection
                // dropped meanwhile: so were many others, and they load again together, bounded, in batches
                queueResync(topic);
                startQueuedResyncsSoon();
            } else {
                sync(topic);
            }
        }
        topic.releaseWaiters();
        attempt.complete(topic.current);
        if (!anySyncing() && backend.isConnected()) {
            health.markFresh();
        }
    }

    /** The source's local copy, when the load failed because Redis cannot be reached; else null. */
    private Versioned<V> restore(ViewTopic<V, E> topic, Throwable failure) {
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

    private void retryLater(ViewTopic<V, E> topic, Throwable failure) {
        topic.failures++;
        if (topic.current == null && !topic.pinned()) {
            return; // nobody waits for it: the next read starts over
        }
        long delay = limits.retry().delayMillis(topic.failures, random);
        log.debug("{} '{}' could not be loaded ({}), retrying in {} ms", name, topic.id, failure.toString(), delay);
        clock.schedule(() -> viewThread.execute(() -> resyncWhenFree(List.of(topic))), delay, TimeUnit.MILLISECONDS);
    }

    /**
     * Whether a sync is under way or waiting. Counted, not looked up: every sync's end asks, and a scan of every
     * topic there made a preload or resync of 10,000 topics cost 10,000 scans of 10,000.
     */
    private boolean anySyncing() {
        return syncsUnderWay > 0 || admission.anyWaiting();
    }

    /**
     * After a reconnect: every topic loaded before the last disconnect may have missed events, or Redis may have
     * restarted (one loaded since then is current, and re-reading it could only skip events still in flight).
     */
    void resyncAll() {
        viewThread.execute(() -> {
            long epoch = health.epoch();
            resyncWhenFree(topics.all().stream().filter(topic -> !topic.syncing
                    && (topic.current != null || topic.pinned()) && topic.loadedEpoch < epoch).toList());
            if (!anySyncing() && backend.isConnected()) {
                health.markFresh();
            }
        });
    }

    /**
     * Resyncs a topic whose subscription was just renewed (Redis had dropped it, or its node was lost), so events
     * may have been missed meanwhile. A sync already under way may have read before the drop, so it is followed by
     * another. The resync waits for a slot like those after a reconnect (bounded, and batched for a batching
     * source): a lost cluster node renews the subscriptions of thousands of topics at once, and one sync each, all
     * started at once, is a stampede.
     */
    void resubscribed(ViewTopic<V, E> topic) {
        viewThread.execute(() -> {
            if (closed || !topics.isLive(topic)) {
                return;
            }
            if (topic.syncing) {
                topic.syncAgain = true;
            } else {
                queueResync(topic);
                startQueuedResyncsSoon();
            }
        });
    }

    /**
     * Starts the queued resyncs once the view thread ran what is queued before it (view thread): the renewed
     * channels of a slot come one by one, and starting at each would load them in batches of one.
     */
    private void startQueuedResyncsSoon() {
        if (!startQueued) {
            startQueued = true;
            viewThread.execute(() -> {
                startQueued = false;
                startWaitingResyncs();
            });
        }
    }

    /** Queues topics for a resync (view thread); they start as soon as fewer than the bound are in flight. */
    private void resyncWhenFree(List<ViewTopic<V, E>> due) {
        due.forEach(this::queueResync);
        startWaitingResyncs();
    }

    private void queueResync(ViewTopic<V, E> topic) {
        if (topic.group == null) {
            admission.queue(topic);
        } else {
            queueForBatch(topic, false);
        }
    }

    /** Queues a topic of a batching source (view thread); {@code loadOnly}: unless it holds a value by then. */
    private void queueForBatch(ViewTopic<V, E> topic, boolean loadOnly) {
        if (admission.queue(topic.group, topic)) {
            topic.queuedLoadOnly = loadOnly;
        } else if (!loadOnly) {
            topic.queuedLoadOnly = false;
        }
    }

    private void startWaitingResyncs() {
        List<ViewTopic<V, E>> batch;
        while ((batch = admission.nextBatch(this::joinsBatch)) != null) {
            if (!batch.isEmpty()) {
                syncBatch(batch);
            }
        }
        ViewTopic<V, E> topic;
        while ((topic = admission.nextResync()) != null) {
            if (!closed && !topic.syncing && topics.isLive(topic)) {
                sync(topic);
            }
        }
    }

    /**
     * Whether a topic whose batch is starting loads in it. One that does not is dealt with here: dropped (or the
     * view closed) meanwhile, loading by another way already, or queued by a preload and loaded meanwhile.
     */
    private boolean joinsBatch(ViewTopic<V, E> topic) {
        if (closed || !topics.isLive(topic)) {
            failWaiting(topic, closed ? backend.closedException() : new LodestarException(name + " '"
                    + topic.id + "' was dropped before it could load"));
            return false;
        }
        if (topic.syncing) {
            topic.queuedLoadOnly = false;
            List<CompletableFuture<Versioned<V>>> waiters = topic.waiting;
            topic.waiting = null;
            if (waiters != null) {
                topic.attempt.whenComplete((value, failure) -> waiters.forEach(w -> settle(w, value, failure)));
            }
            return false;
        }
        if (topic.queuedLoadOnly && topic.current != null) { // loaded meanwhile: nothing to do
            topic.queuedLoadOnly = false;
            List<CompletableFuture<Versioned<V>>> waiters = topic.waiting;
            topic.waiting = null;
            if (waiters != null) {
                waiters.forEach(w -> w.complete(topic.current));
            }
            return false;
        }
        return true;
    }

    private void failWaiting(ViewTopic<V, E> topic, RuntimeException failure) {
        topic.queuedLoadOnly = false;
        List<CompletableFuture<Versioned<V>>> waiters = topic.waiting;
        topic.waiting = null;
        if (waiters != null) {
            waiters.forEach(waiter -> waiter.completeExceptionally(failure));
        }
    }

    /**
     * Loads the topics not held yet: for a batching source ({@link ViewSource#group}) in batches, bounded like
     * resyncs; otherwise one {@link ViewReads#loadAsync} each. Completes when all are loaded, or with a Lodestar
     * exception when any could not be (that one is not kept: the next read tries again; the others stay loaded).
     */
    CompletableFuture<Void> preload(Collection<String> ids) {
        requireOpen();
        List<String> distinct = ids.stream().distinct().toList();
        if (distinct.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        if (source.group(distinct.get(0)) == null) {
            return CompletableFuture.allOf(distinct.stream().map(api::loadAsync).toArray(CompletableFuture[]::new));
        }
        List<ViewTopic<V, E>> wanted = distinct.stream().map(topics::getOrCreate).toList();
        List<CompletableFuture<Versioned<V>>> loads = new ArrayList<>(wanted.size());
        CompletableFuture<Void> queued = new CompletableFuture<>();
        executeOrClosed(() -> {
            for (ViewTopic<V, E> topic : wanted) {
                if (topic.current != null) {
                    continue;
                }
                CompletableFuture<Versioned<V>> load = new CompletableFuture<>();
                loads.add(load);
                if (closed || !topics.isLive(topic)) {
                    load.completeExceptionally(closed ? backend.closedException()
                            : new LodestarException(name + " '" + topic.id + "' was dropped before it could load"));
                } else if (topic.syncing) {
                    topic.attempt.whenComplete((value, failure) -> settle(load, value, failure));
                } else {
                    if (topic.waiting == null) {
                        topic.waiting = new ArrayList<>(1);
                    }
                    topic.waiting.add(load);
                    queueForBatch(topic, true);
                }
                load.whenComplete((value, failure) -> {
                    if (failure != null) {
                        removeUnpinned(topic.id, topic); // never cache a failure: the next read tries again
                    }
                });
            }
            startWaitingResyncs();
            queued.complete(null);
        });
        return queued.thenCompose(ignored -> CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)))
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(Errors.translate(failure,
                        "preload " + name + "s", backend.where(), timeout)));
    }

    /** Compares every held topic's revision with Redis; resyncs those that differ. */
    void reconcile() {
        for (ViewTopic<V, E> topic : topics.all()) {
            Versioned<V> held = topic.current;
            if (held == null || topic.syncing) {
                continue;
            }
            source.stamp(topic.id).whenComplete((stamp, failure) -> viewThread.execute(() -> {
                if (failure == null) {
                    health.heard();
                    // A digest only Redis has means the held value came from an event Redis never published.
                    boolean sameRevision = topic.current != null && topic.current.revision == stamp.revision()
                            && !topic.current.otherIncarnation(stamp.incarnation());
                    // (a topic that keeps what Redis lost holds another state than Redis' on purpose)
                    if (sameRevision && topic.kept == null && stamp.digest() != null
                            && !stamp.digest().equals(source.digest(topic.current))) {
                        topic.untrusted = true; // same revision, another state: the view applied a forged event
                    }
                    if (!topic.syncing && topic.current != null && (!sameRevision || topic.untrusted)) {
                        if (aheadInRedis(topic, stamp)) {
                            // Its event may be on the way (the stamp's reply and the event come on two connections):
                            // look again after a grace rather than re-read a topic that is about to be current.
                            clock.schedule(() -> viewThread.execute(() -> resyncIfStillBehind(topic, stamp)),
                                    limits.reconcileGrace().toMillis(), TimeUnit.MILLISECONDS);
                        } else {
                            resyncAfterReconcile(topic, stamp);
                        }
                    }
                }
            }));
        }
    }

    /** Redis holds a later revision of the same incarnation than the topic, and nothing says the topic is forged. */
    private boolean aheadInRedis(ViewTopic<V, E> topic, Versioned<Void> stamp) {
        return !topic.untrusted && stamp.revision() > topic.current.revision
                && !topic.current.otherIncarnation(stamp.incarnation());
    }

    /**
     * View thread, {@link ViewLimits#reconcileGrace} after a reconcile found Redis ahead: resyncs if no event caught
     * up.
     */
    private void resyncIfStillBehind(ViewTopic<V, E> topic, Versioned<Void> stamp) {
        if (topics.isLive(topic) && !topic.syncing && topic.current != null
                && topic.current.revision < stamp.revision()) {
            resyncAfterReconcile(topic, stamp);
        }
    }

    private void resyncAfterReconcile(ViewTopic<V, E> topic, Versioned<Void> stamp) {
        log.debug("{} '{}': reconcile found revision {} but holds {}", name, topic.id, stamp.revision(),
                topic.current.revision);
        sync(topic);
    }

    /** A closed view is empty, so every read would load: it says the client is closed instead. */
    void requireOpen() {
        if (closed) {
            throw backend.closedException();
        }
    }

    /** Runs on the view thread; the client may be closing, and its stopped thread rejects the task. */
    void executeOrClosed(Runnable task) {
        try {
            viewThread.execute(task);
        } catch (RejectedExecutionException e) {
            throw backend.closedException();
        }
    }

    /**
     * A connection the view needs is lost (or Redis cannot be reached): stale until every topic is current again. On
     * a transport that reports each renewed subscription, the report resyncs what may have missed events; a drop
     * does not make every topic loaded before it resync (on a cluster, a drop at one node made the topics of the
     * others, loading or loaded, read once more).
     */
    void markStale() {
        health.markStale(!backend.reportsResubscriptions());
    }

    void markRestoredFromDisk() {
        health.markRestoredFromDisk();
    }

    /**
     * Unfollows and unsubscribes a dropped topic's channel (view thread). Not while its sync is under way: that
     * sync's subscribe may not have reached Redis yet (it waits for a lost connection, or for a cluster node's), and
     * an unsubscribe sent ahead of it would leave the channel subscribed with nobody following it; the sync's end
     * unsubscribes instead ({@link #unsubscribeDead}).
     */
    private void drop(ViewTopic<V, E> topic) {
        lostItems.dropped(topic);
        if (router.unfollow(topic.channel, topic) && !closed && !topic.syncing) {
            unsubscribe(topic.channel);
        }
    }

    /**
     * The sync of a topic dropped meanwhile has ended, its subscribe done (view thread): unsubscribes the channel,
     * unless a new topic of the id follows it now (which may rely on this subscription). Also unfollows it, for a
     * sync that began after the drop (a read that got the topic as it was removed).
     */
    private void unsubscribeDead(ViewTopic<V, E> topic) {
        router.unfollow(topic.channel, topic);
        if (router.route(topic.channel) == null) {
            unsubscribe(topic.channel);
        }
    }

    private void unsubscribe(String channel) {
        backend.unsubscribe(channel).whenComplete((ok, failure) -> {
            if (failure != null) {
                log.debug("Could not unsubscribe {}: {}", channel, failure.toString());
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        topics.close();
        deadlines.close(); // the client's scheduler stops next, dropping their timers: no call may hang on them
    }

    // ---------------------------------------------------------------- what a topic calls on (see ViewTopic)

    ViewSource<V, E> source() {
        return source;
    }

    String name() {
        return name;
    }

    boolean isClosed() {
        return closed;
    }

    Inbox.Mailbox<Message> mailbox(ViewTopic<V, E> topic) {
        return inbox.mailbox(topic);
    }

    void onViewThread(Runnable task) {
        viewThread.execute(task);
    }

    /** Events of a topic were applied (view thread): the items they wrote or removed are no longer kept. */
    void applied(ViewTopic<V, E> topic, List<Message> messages) {
        lostItems.applied(topic, messages);
    }

    /** Publishes a topic's new value to the read path (view thread; see {@link ViewTopic#hold}). */
    void publish(ViewTopic<V, E> topic, V value) {
        topics.publish(topic, value);
    }

    /** Events of a topic were dropped for the view's inbox bound (view thread): re-read instead. */
    void inboxOverflowed(ViewTopic<V, E> topic) {
        log.warn("{} '{}': more than {} events wait for the view thread; dropping them and re-reading the"
                + " topic instead", name, topic.id, limits.maxInbox());
        if (!closed && topics.isLive(topic) && topic.current != null) {
            sync(topic);
        }
    }
}
