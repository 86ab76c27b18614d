package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.lodestar.redis.internal.time.Clock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The topics a {@link SyncedView} holds, by id, their values for the read path, their idle
 * expiry and their limit: topics nobody read for the idle timeout are dropped (Caffeine's variable expiry), and past
 * the limit the topic read least recently is dropped when a new one comes; pinned ones (with listeners) never are.
 * Thread-safe.
 *
 * <p>Three maps: Caffeine owns the topics and expires them; {@code readable} holds the same topics, and a topic is
 * alive (subscribed, applying events, served) exactly while it is readable: Caffeine may hide an expired topic a
 * while before it evicts it, and until then the topic must stay current. {@code values} holds, for the read path,
 * the value of each readable topic that has one: a read is one lookup that lands on the value itself (at scale
 * every object a read goes through is a cache miss, and a topic object between the map and the value was one).
 *
 * <h2>The values map and liveness</h2>
 * Invariant: {@code values[id]}, when present, is the value last {@linkplain #publish published} by the topic
 * {@code readable[id]}; it is absent when that topic has published none, or when no topic of the id is readable.
 * Every change of {@code readable[id]} and every write of {@code values[id]} happens inside
 * {@code values.compute(id, ...)}, so all of them are serialized per id by that map's bin lock:
 * <ul>
 *   <li>a new topic becomes readable and clears {@code values[id]} (the value of the topic it replaces, if any) in
 *       one step ({@link #create});</li>
 *   <li>a topic stops being readable and clears {@code values[id]} in one step, only if it was the readable one
 *       ({@link #unreadable}: Caffeine's eviction, {@link #removeIf});</li>
 *   <li>{@link #publish} writes {@code values[id]} only if its topic is {@code readable[id]} at that moment, else
 *       leaves it as it is.</li>
 * </ul>
 * So a late publish by a topic that just stopped being live either ran before its removal (which then cleared it)
 * or runs after it and writes nothing: no value of a dead topic stays readable. And the value of a live topic never
 * vanishes: only its own removal or its replacement by a new topic clears it. A read that misses (no live topic
 * with a value) falls back to the slow path, which loads the id (or finds the topic Caffeine holds and its value).
 * The read path never locks: it reads {@code served}, a {@link ReadTable} holding the same values, written only
 * inside {@code values.compute} (so under the same per-id serialization, and the invariant holds for it too): a
 * read lands on the value from the table's array, with no map node in between.
 *
 * <p>Read-your-writes: the view thread publishes before it writes the topic's {@code current}, which is what
 * {@code awaitRevision} waits on; a thread that saw a revision there then reads that revision's value from
 * {@code values}, or a newer one (the map's writes are volatile writes, its reads volatile reads).
 *
 * <h2>Idle expiry without touching the topic on a read</h2>
 * A read sets one bit, chosen by the id's hash (cached in the {@code String}), in a small bit set ({@link Reads}):
 * it first reads the word and writes only if the bit is clear, so steady reads of a topic do not write, and the bit
 * set, shared by every read, stays in the CPU caches. Every tick (idle timeout / 8, between 10 ms and 1 s) the
 * table starts a new bit set and tells Caffeine of every readable topic whose bit is set in the one retired at the
 * previous tick, so a read is reported within two ticks: by then no read that began before the set was retired
 * can still be setting a bit in it (unless its thread stalled for a whole tick: that read is lost). A topic is
 * thus never expired earlier than the idle timeout after a read, and at most two ticks later than that. Each bit
 * set has a random salt, so two ids that share a bit in one tick rarely do in the next: a collision keeps an idle
 * topic one tick longer, with a probability of the share of bits set (at most about 40 %: the set has 2 to 4 bits
 * per topic). The scan costs O(topics) per tick (see {@link #report}): measured 0.6 ms at 10,000 topics and 5 to
 * 10 ms at 100,000 (a tenth to all of them read; a loaded 2-core machine), so under 1 % of one core at the default
 * idle timeout (10 minutes: one tick a second). If a scan takes more than 1/20 of the tick, the next tick comes
 * later, up to a quarter of the idle timeout (so a topic read steadily is reported several times per timeout and
 * never expires): the scan takes at most 5 % of one core, unless the idle timeout is so short for so many topics
 * that a quarter of it is less than 20 scans (at the shortest, 100 ms, with 100,000 topics: a 10 ms scan every
 * 25 ms).
 *
 * @param <T> the topic
 * @param <V> the value of a topic
 */
final class TopicTable<T extends TopicTable.Entry, V> implements AutoCloseable {
    /** What the table needs of a topic. */
    abstract static class Entry {
        final String id;
        final String channel;

        Entry(String id, String channel) {
            this.id = id;
            this.channel = channel;
        }

        /** A pinned topic never expires (it has listeners). */
        abstract boolean pinned();

        /** Whether the limit may drop this topic: by default when it is not pinned. */
        boolean droppable() {
            return !pinned();
        }
    }

    private final Function<String, T> factory;
    private final int limit;
    private final Consumer<T> onDropped;
    private final Cache<String, T> topics;
    private final Map<String, T> readable = new ConcurrentHashMap<>();
    /** The value of each readable topic that published one (see the class comment for the invariant). */
    private final ConcurrentHashMap<String, V> values = new ConcurrentHashMap<>();
    /**
     * The same values for the read path, written only inside {@code values.compute} of their id (so the invariant
     * holds for it too): a read lands on the value with no map node in between ({@link ReadTable}).
     */
    private final ReadTable<V> served = new ReadTable<>();
    private final Object limitLock = new Object();
    private final Clock clock;
    private final long tickNanos;
    private final long longestTickNanos;
    /** The bit set reads mark now. */
    private volatile Reads reads;
    /** The bit set retired at the last tick: reported at the next one (tick thread only, under this lock). */
    private Reads retired;
    private Clock.Scheduled ticking; // under this lock
    private boolean closed; // under this lock

    /**
     * @param factory         makes a topic (called atomically per id)
     * @param idleTimeout     how long an unpinned topic nobody reads is kept
     * @param limit           how many topics are held before a new one drops the one read least recently
     * @param clock           the clock of idle expiry, and what runs the read path's tick (a manual one in unit
     *                        tests)
     * @param expiryScheduler when Caffeine looks for idle topics on its own; {@link Scheduler#disabledScheduler()}
     *                        leaves it to {@link #cleanUp()}
     * @param onRemoved       told of every topic removed (expired, removed, or on close), on Caffeine's executor
     * @param onDropped       told of every topic dropped for the limit (after it was removed), on the thread
     *                        whose new topic passed the limit
     */
    TopicTable(Function<String, T> factory, Duration idleTimeout, int limit, Clock clock, Scheduler expiryScheduler,
               Consumer<T> onRemoved, Consumer<T> onDropped) {
        this.factory = factory;
        this.limit = limit;
        this.onDropped = onDropped;
        long idleNanos = idleTimeout.toNanos();
        this.topics = Caffeine.newBuilder()
                .scheduler(expiryScheduler)
                .ticker(clock::nanoTime)
                .expireAfter(new Expiry<String, T>() {
                    @Override
                    public long expireAfterCreate(String id, T topic, long now) {
                        return topic.pinned() ? Long.MAX_VALUE : idleNanos;
                    }

                    @Override
                    public long expireAfterUpdate(String id, T topic, long now, long remaining) {
                        return expireAfterCreate(id, topic, now);
                    }

                    @Override
                    public long expireAfterRead(String id, T topic, long now, long remaining) {
                        return expireAfterCreate(id, topic, now);
                    }
                })
                .evictionListener((String id, T topic, RemovalCause cause) -> unreadable(id, topic))
                .removalListener((String id, T topic, RemovalCause cause) -> {
                    if (topic != null) {
                        onRemoved.accept(topic);
                    }
                })
                .build();
        this.clock = clock;
        this.tickNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(10, Math.min(1000, idleTimeout.toMillis() / 8)));
        this.longestTickNanos = Math.max(tickNanos, idleNanos / 4);
        this.reads = new Reads(0);
        synchronized (this) {
            this.ticking = clock.schedule(this::tickAndReschedule, tickNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Creates a topic in the cache (called by Caffeine, atomically per id) and makes it readable, with no value. */
    private T create(String id) {
        T topic = factory.apply(id);
        values.compute(id, (key, value) -> {
            readable.put(key, topic);
            served.put(key, null);
            return null; // the value of the topic it replaces, if any, is not this one's
        });
        return topic;
    }

    /** Makes the topic unreadable and drops its value, if it is the id's readable topic (atomically per id). */
    private void unreadable(String id, T topic) {
        values.compute(id, (key, value) -> {
            if (!readable.remove(key, topic)) {
                return value;
            }
            served.put(key, null);
            return null;
        });
    }

    /** The topic of an id, created if there is none (then dropping one read least recently past the limit). */
    T getOrCreate(String id) {
        return withinLimit(topics.get(id, this::create));
    }

    /**
     * Runs {@code attach} on the id's live topic, or on a new one if there is none (or only one that expired and is
     * not evicted yet), atomically with expiry and removal: a topic that expires or is removed at this very moment
     * either keeps what was attached or is replaced by a new one that has it.
     */
    T attach(String id, Consumer<T> attach) {
        return withinLimit(topics.asMap().compute(id, (key, existing) -> {
            T held = existing != null && readable.get(key) == existing ? existing : create(key);
            attach.accept(held);
            return held;
        }));
    }

    /**
     * Drops topics past the limit, those read least recently first, never {@code kept} (the one just asked for) nor
     * one that is not {@linkplain Entry#droppable droppable}: a view of pinned topics only may hold more. Caffeine
     * orders the topics by when they expire, which is the idle timeout after their last read (reported by a tick)
     * or after they were pinned or unpinned; pinned ones come last. Its timer wheel orders them to about a second
     * (idle timeouts under a minute) or a minute (under an hour, as the default 10 minutes): the order is that
     * fine. Runs outside Caffeine's compute (a removal inside it could deadlock), one thread at a time.
     */
    private T withinLimit(T kept) {
        if (readable.size() <= limit) {
            return kept;
        }
        synchronized (limitLock) {
            int excess = readable.size() - limit;
            if (excess > 0) {
                List<T> oldest = topics.policy().expireVariably().orElseThrow().oldest(entries -> entries
                        .map(Map.Entry::getValue).filter(topic -> topic != kept && topic.droppable())
                        .limit(excess).toList());
                for (T topic : oldest) {
                    if (removeIf(topic.id, topic, T::droppable)) {
                        onDropped.accept(topic);
                    }
                }
            }
        }
        return kept;
    }

    /**
     * Removes the topic if it is still the id's and {@code removable} (checked atomically with {@link #attach}).
     *
     * @return whether it was removed
     */
    boolean removeIf(String id, T topic, Predicate<T> removable) {
        boolean[] removed = new boolean[1];
        topics.asMap().computeIfPresent(id, (key, held) -> {
            if (held == topic && removable.test(topic)) {
                removed[0] = true;
                return null;
            }
            return held;
        });
        if (removed[0]) {
            unreadable(id, topic);
        }
        return removed[0];
    }

    /**
     * Re-evaluates a topic's expiry (pinned: never; else the idle timeout) through a write, which Caffeine always
     * applies: it can drop a change made on its read path (setExpiresAfter) under load, which left an unpinned
     * topic held for good. Serialized per topic, so a subscribe's pin cannot land after a close's unpin.
     */
    void pin(String id, T topic) {
        synchronized (topic) {
            topics.asMap().replace(id, topic, topic); // the same instance: no removal is reported
        }
    }

    /** The live topic of an id, or null; no expiry bookkeeping. */
    T live(String id) {
        return readable.get(id);
    }

    /** Whether the topic is alive: still the one its id maps to. */
    boolean isLive(T topic) {
        return readable.get(topic.id) == topic;
    }

    /**
     * Publishes the topic's new value for the read path, if the topic is live (else does nothing: see the class
     * comment). Called on the view thread before the topic's versioned value is written.
     */
    void publish(T topic, V value) {
        values.compute(topic.id, (key, held) -> {
            if (readable.get(key) != topic) {
                return held;
            }
            served.put(key, value);
            return value;
        });
    }

    /**
     * The value of the id's live topic, or null if it has none (or there is none); marks the id as read for idle
     * expiry. No lock, no allocation, no write unless this is the id's first read since the last tick.
     */
    V read(String id) {
        V value = served.get(id);
        if (value != null) {
            reads.mark(id);
        }
        return value;
    }

    /** Retires the bit set of reads and reports the one retired at the last tick (see the class comment). */
    synchronized void tick() {
        Reads report = retired;
        if (report != null) {
            report(report);
        }
        retired = reads;
        int size = readable.size();
        reads = report != null && report.fits(size) ? report.cleared() : new Reads(size); // reused once reported
    }

    /**
     * Tells Caffeine of every readable topic whose bit is set: O(topics), an iteration of the map, a hash per id and
     * a Caffeine read per topic read (or sharing a bit with one): 5 ms at 100,000 topics of which 10,000 were read,
     * 10 ms with all of them read, 0.6 ms at 10,000 (best of 30 ticks, loaded 2-core AMD EPYC, 2026-11-24).
     */
    private void report(Reads read) {
        for (String id : readable.keySet()) {
            if (read.marked(id)) {
                topics.getIfPresent(id);
            }
        }
    }

    private void tickAndReschedule() {
        long start = clock.nanoTime();
        try {
            tick();
        } finally {
            long took = clock.nanoTime() - start;
            synchronized (this) {
                if (!closed) { // the scan takes at most 1/20 of the time between ticks
                    long next = Math.max(tickNanos, Math.min(longestTickNanos, took * 20));
                    try {
                        ticking = clock.schedule(this::tickAndReschedule, next, TimeUnit.NANOSECONDS);
                    } catch (RejectedExecutionException e) { // the client is shutting down
                        closed = true;
                    }
                }
            }
        }
    }

    /** The id's topic as Caffeine has it (null once it expired, even before eviction); counts as a read. */
    T ifPresent(String id) {
        return topics.getIfPresent(id);
    }

    /** The live topics (a live view of the map). */
    Collection<T> all() {
        return readable.values();
    }

    List<String> ids() {
        return List.copyOf(readable.keySet());
    }

    int size() {
        return readable.size();
    }

    /** Runs pending expiry now (tests; Caffeine otherwise does it on its own schedule). */
    void cleanUp() {
        topics.cleanUp();
    }

    /** Drops every topic (each is reported as removed). */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            ticking.cancel();
        }
        topics.invalidateAll();
        readable.clear();
        values.clear(); // after: a publish from now on finds its topic unreadable
        served.clear();
    }

    /**
     * The ids read during one tick, as bits indexed by a salted hash of the id: 2 to 4 bits per topic (at least
     * 4,096), a fresh random salt each time it is cleared. A read sets its bit only if it is clear (an atomic OR);
     * steady reads only read the word.
     */
    static final class Reads {
        private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
        private static final int MIN_BITS_LOG2 = 12;
        private final long[] words;
        private final int shift;
        private int salt; // written before the set is published (through the volatile field that holds it)

        Reads(int topics) {
            int log2 = bitsLog2(topics);
            this.words = new long[1 << (log2 - 6)];
            this.shift = 32 - log2;
            this.salt = ThreadLocalRandom.current().nextInt();
        }

        /** Log2 of the bits for this many topics: the power of two from 2 to 4 bits per topic, at least 4,096. */
        static int bitsLog2(int topics) {
            int atLeast = (int) Math.min(1 << 30, 2L * Math.max(1, topics));
            return Math.max(MIN_BITS_LOG2, 32 - Integer.numberOfLeadingZeros(atLeast - 1));
        }

        /** Whether the set has 2 to 4 bits per topic for this many topics. */
        boolean fits(int topics) {
            return 32 - shift == bitsLog2(topics);
        }

        int bits() {
            return 1 << (32 - shift);
        }

        /** The same set, emptied and salted anew (no read may be marking it any more). */
        Reads cleared() {
            Arrays.fill(words, 0);
            salt = ThreadLocalRandom.current().nextInt();
            return this;
        }

        void mark(String id) {
            int bit = bit(id);
            long mask = 1L << bit;
            int word = bit >>> 6;
            if (((long) WORDS.getOpaque(words, word) & mask) == 0) {
                WORDS.getAndBitwiseOr(words, word, mask);
            }
        }

        boolean marked(String id) {
            int bit = bit(id);
            return ((long) WORDS.getVolatile(words, bit >>> 6) & (1L << bit)) != 0;
        }

        private int bit(String id) {
            return ((id.hashCode() ^ salt) * 0x9E3779B9) >>> shift; // Fibonacci hashing of the salted hash
        }
    }
}
