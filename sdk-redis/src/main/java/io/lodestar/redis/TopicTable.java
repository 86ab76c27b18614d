package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The topics a {@link SyncedView} holds, by id and by channel, and their idle expiry: topics nobody read for the idle
 * timeout are dropped (Caffeine's variable expiry); pinned ones (with listeners) never are. Thread-safe.
 *
 * <p>Two maps: Caffeine owns the topics and expires them; {@code readable} holds the same topics for the read path,
 * a plain map lookup, cheaper than Caffeine's read with variable expiry. Reads tell Caffeine about themselves at
 * most once per tick (+1 every idle timeout / 8, between 10 ms and 1 s), which is all idle expiry needs. A topic is
 * alive (subscribed, applying events, served) exactly while it is readable: Caffeine may hide an expired topic a
 * while before it evicts it, and until then the topic must stay current.
 *
 * @param <T> the topic
 */
final class TopicTable<T extends TopicTable.Entry> implements AutoCloseable {
    /** What the table needs of a topic. */
    abstract static class Entry {
        final String id;
        final String channel;
        /** The tick of the last read reported to Caffeine; racy on purpose (a lost update costs nothing). */
        long readAt = -1;

        Entry(String id, String channel) {
            this.id = id;
            this.channel = channel;
        }

        /** A pinned topic never expires (it has listeners). */
        abstract boolean pinned();
    }

    private final Function<String, T> factory;
    private final Cache<String, T> topics;
    private final Map<String, T> readable = new ConcurrentHashMap<>();
    private final Map<String, T> byChannel = new ConcurrentHashMap<>();
    private volatile long tick;
    private final ScheduledFuture<?> ticking;

    /**
     * @param factory         makes a topic (called atomically per id)
     * @param idleTimeout     how long an unpinned topic nobody reads is kept
     * @param ticker          the clock of idle expiry (a fake one in unit tests)
     * @param expiryScheduler when Caffeine looks for idle topics on its own; {@link Scheduler#disabledScheduler()}
     *                        leaves it to {@link #cleanUp()}
     * @param scheduler       runs the read path's tick
     * @param onRemoved       told of every topic removed (expired, removed, or on close), on Caffeine's executor
     */
    TopicTable(Function<String, T> factory, Duration idleTimeout, Ticker ticker, Scheduler expiryScheduler,
               ScheduledExecutorService scheduler, Consumer<T> onRemoved) {
        this.factory = factory;
        long idleNanos = idleTimeout.toNanos();
        this.topics = Caffeine.newBuilder()
                .scheduler(expiryScheduler)
                .ticker(ticker)
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
                .evictionListener((String id, T topic, RemovalCause cause) -> readable.remove(id, topic))
                .removalListener((String id, T topic, RemovalCause cause) -> {
                    if (topic != null) {
                        onRemoved.accept(topic);
                    }
                })
                .build();
        long tickMillis = Math.max(10, Math.min(1000, idleTimeout.toMillis() / 8));
        this.ticking = scheduler.scheduleAtFixedRate(() -> tick++, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
    }

    /** Creates a topic in the cache (called by Caffeine, atomically per id) and makes it readable. */
    private T create(String id) {
        T topic = factory.apply(id);
        readable.put(id, topic);
        return topic;
    }

    /** The topic of an id, created if there is none. */
    T getOrCreate(String id) {
        return topics.get(id, this::create);
    }

    /**
     * Runs {@code attach} on the id's live topic, or on a new one if there is none (or only one that expired and is
     * not evicted yet), atomically with expiry and removal: a topic that expires or is removed at this very moment
     * either keeps what was attached or is replaced by a new one that has it.
     */
    T attach(String id, Consumer<T> attach) {
        return topics.asMap().compute(id, (key, existing) -> {
            T held = existing != null && readable.get(key) == existing ? existing : create(key);
            attach.accept(held);
            return held;
        });
    }

    /** Removes the topic if it is still the id's and {@code removable} (checked atomically with {@link #attach}). */
    void removeIf(String id, T topic, Predicate<T> removable) {
        boolean[] removed = new boolean[1];
        topics.asMap().computeIfPresent(id, (key, held) -> {
            if (held == topic && removable.test(topic)) {
                removed[0] = true;
                return null;
            }
            return held;
        });
        if (removed[0]) {
            readable.remove(id, topic);
        }
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

    /** A read of the topic: tells Caffeine it is in use, at most once per tick. */
    void touch(T topic) {
        long now = tick;
        if (topic.readAt != now) {
            topic.readAt = now;
            topics.getIfPresent(topic.id);
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

    /** Routes the topic's channel to it. */
    void follow(T topic) {
        byChannel.put(topic.channel, topic);
    }

    /** The topic following a channel, or null. */
    T following(String channel) {
        return byChannel.get(channel);
    }

    /** Stops routing the topic's channel to it; false when the channel already routes elsewhere or nowhere. */
    boolean unfollow(T topic) {
        return byChannel.remove(topic.channel, topic);
    }

    /** Drops every topic (each is reported as removed). */
    @Override
    public void close() {
        ticking.cancel(false);
        topics.invalidateAll();
        readable.clear();
    }
}
