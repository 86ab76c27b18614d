package io.lodestar.redis.internal.view;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which of the topics waiting to load may start now: at most {@link ViewLimits#maxConcurrentResyncs} resyncs at
 * once, one topic each; for a source that loads in batches, a batch (at most {@link ViewLimits#maxBatchTopics}
 * topics of one group) only while fewer than {@link ViewLimits#maxConcurrentBatches} batches and fewer than
 * {@link ViewLimits#maxTopicsInFlight} topics are loading. The rest wait, in order, each once. Not thread-safe: the
 * view thread owns it.
 *
 * @param <T> a topic
 */
public final class Admission<T> {
    private final ViewLimits limits;
    /** Topics waiting for a resync slot, in order, each once. */
    private final Set<T> waiting = new LinkedHashSet<>();
    /** Topics of a batching source waiting for a batch slot, by group, in order, each once. */
    private final Map<Object, Set<T>> waitingGroups = new LinkedHashMap<>();
    private int resyncsInFlight;
    private int batchesInFlight;
    private int batchTopicsInFlight;
    /** The most of each so far (tests, from any thread). */
    private volatile int peakResyncsInFlight;
    private volatile int peakBatchesInFlight;
    private volatile int peakBatchTopicsInFlight;

    public Admission(ViewLimits limits) {
        this.limits = limits;
    }

    /** Queues a topic for a resync of its own (once: a topic already waiting keeps its place). */
    public void queue(T topic) {
        waiting.add(topic);
    }

    /** Queues a topic for a batch of its group; false when it already waits (it keeps its place). */
    public boolean queue(Object group, T topic) {
        return waitingGroups.computeIfAbsent(group, key -> new LinkedHashSet<>()).add(topic);
    }

    /** Takes a topic out of its group's queue (it loads by another way). */
    public void unqueue(Object group, T topic) {
        Set<T> topics = waitingGroups.get(group);
        if (topics != null && topics.remove(topic) && topics.isEmpty()) {
            waitingGroups.remove(group);
        }
    }

    /** Whether any topic waits, alone or for a batch. */
    public boolean anyWaiting() {
        return !waiting.isEmpty() || !waitingGroups.isEmpty();
    }

    /** The next topic to resync on its own, taken out of the queue; null when none waits or no slot is free. */
    public T nextResync() {
        if (resyncsInFlight >= limits.maxConcurrentResyncs() || waiting.isEmpty()) {
            return null;
        }
        Iterator<T> first = waiting.iterator();
        T topic = first.next();
        first.remove();
        return topic;
    }

    /**
     * The next batch, when the bounds let one start: the waiting topics of the first group that waits, in order,
     * each taken out of the queue and offered to {@code joins}, until {@link ViewLimits#maxBatchTopics} joined. A
     * topic {@code joins} turns away is its to deal with (it need not load, or cannot). Null when no batch may start
     * now or none waits; empty when every topic taken was turned away (then ask again).
     */
    public List<T> nextBatch(Predicate<T> joins) {
        if (batchesInFlight >= limits.maxConcurrentBatches() || batchTopicsInFlight >= limits.maxTopicsInFlight()
                || waitingGroups.isEmpty()) {
            return null;
        }
        Iterator<Map.Entry<Object, Set<T>>> groups = waitingGroups.entrySet().iterator();
        Set<T> group = groups.next().getValue();
        List<T> batch = new ArrayList<>(Math.min(group.size(), limits.maxBatchTopics()));
        Iterator<T> topics = group.iterator();
        while (topics.hasNext() && batch.size() < limits.maxBatchTopics()) {
            T topic = topics.next();
            topics.remove();
            if (joins.test(topic)) {
                batch.add(topic);
            }
        }
        if (group.isEmpty()) {
            groups.remove();
        }
        return batch;
    }

    /** A resync (counted against {@link ViewLimits#maxConcurrentResyncs}) started. */
    public void resyncStarted() {
        resyncsInFlight++;
        peakResyncsInFlight = Math.max(peakResyncsInFlight, resyncsInFlight);
    }

    public void resyncEnded() {
        resyncsInFlight--;
    }

    /** A batch of {@code topics} topics started loading. */
    public void batchStarted(int topics) {
        batchesInFlight++;
        batchTopicsInFlight += topics;
        peakBatchesInFlight = Math.max(peakBatchesInFlight, batchesInFlight);
        peakBatchTopicsInFlight = Math.max(peakBatchTopicsInFlight, batchTopicsInFlight);
    }

    /** A batch of {@code topics} topics ended (each loaded or failed). */
    public void batchEnded(int topics) {
        batchesInFlight--;
        batchTopicsInFlight -= topics;
    }

    public int peakResyncsInFlight() {
        return peakResyncsInFlight;
    }

    public int peakBatchesInFlight() {
        return peakBatchesInFlight;
    }

    public int peakBatchTopicsInFlight() {
        return peakBatchTopicsInFlight;
    }
}
