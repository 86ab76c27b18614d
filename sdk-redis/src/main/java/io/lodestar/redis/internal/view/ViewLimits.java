package io.lodestar.redis.internal.view;

import io.lodestar.redis.internal.time.Backoff;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds and grace periods of a view, in one place: what keeps a view's memory and its load on Redis bounded
 * whatever Redis or a publisher does.
 *
 * @param maxInbox             most PubSub events that wait for the view thread, per view; past that, the topics
 *                             re-read instead
 * @param maxBuffer            most events kept per topic while it loads; past that, it loads once more
 * @param maxListenerQueue     most events that wait for one listener; past that, it gets the current state once it
 *                             catches up
 * @param maxBatch             most events of one topic applied as one batch (one new value): below
 *                             {@code maxListenerQueue}, so a batch always fits the queue of a listener that keeps
 *                             up; large enough that one copy of a big topic is shared by many
 * @param maxRevisionStep      the largest revision step an event may take past the held revision: PubSub loses
 *                             messages only with the connection, and every reconnect resyncs, so a real event is
 *                             never far ahead; one that is can only be forged
 * @param maxConcurrentResyncs most topics of one view that resync at once (after a reconnect, or retrying a failed
 *                             load): a client holding thousands of services must not stampede a Redis that just
 *                             came back, while a view of a few topics still resyncs them all at once
 * @param maxConcurrentBatches for a source that loads in batches: most batches loading at once
 * @param maxBatchTopics       for a source that loads in batches: most topics of one batch (all of one group)
 * @param maxTopicsInFlight    for a source that loads in batches: another batch starts only while fewer topics than
 *                             this are loading (and one more batch may pass it); bounding topics rather than
 *                             batches alone keeps small batches (a cluster's groups are its buckets: about 80
 *                             services each at 10,000) from waiting on each other's round trips
 * @param reconcileGrace       how long a reconcile that found Redis a few revisions ahead of a topic waits for their
 *                             events before it re-reads the topic: a write between the reconcile's read and its
 *                             event's arrival (on the other connection) is the usual reason, and re-reading then
 *                             would load the topic for nothing and hand its listeners a resync instead of the
 *                             write's event
 * @param revisionGrace        how long a read-your-writes wait lets its event come before it re-reads the topic
 * @param retry                the backoff of a failed load, by the number of failures in a row
 */
public record ViewLimits(int maxInbox, int maxBuffer, int maxListenerQueue, int maxBatch, long maxRevisionStep,
                         int maxConcurrentResyncs, int maxConcurrentBatches, int maxBatchTopics,
                         int maxTopicsInFlight, Duration reconcileGrace, Duration revisionGrace, Backoff retry) {

    public ViewLimits {
        positive("maxInbox", maxInbox);
        positive("maxBuffer", maxBuffer);
        positive("maxListenerQueue", maxListenerQueue);
        positive("maxBatch", maxBatch);
        positive("maxRevisionStep", maxRevisionStep);
        positive("maxConcurrentResyncs", maxConcurrentResyncs);
        positive("maxConcurrentBatches", maxConcurrentBatches);
        positive("maxBatchTopics", maxBatchTopics);
        positive("maxTopicsInFlight", maxTopicsInFlight);
        Objects.requireNonNull(reconcileGrace, "reconcileGrace");
        Objects.requireNonNull(revisionGrace, "revisionGrace");
        Objects.requireNonNull(retry, "retry");
    }

    /**
     * The bounds the client runs with, for a source whose batched reads take at most {@code maxBatchTopics} topics:
     * up to 8 such batches in flight.
     */
    public static ViewLimits defaults(int maxBatchTopics) {
        return new ViewLimits(100_000, 10_000, 4_096, 1_024, 1_000_000, 64, 32, maxBatchTopics, 8 * maxBatchTopics,
                Duration.ofMillis(500), Duration.ofMillis(50), new Backoff(100, 30_000));
    }

    private static void positive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, but was " + value);
        }
    }
}
