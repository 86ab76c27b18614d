package io.lodestar.redis.internal.view;

import io.lodestar.redis.internal.time.Backoff;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which waiting topics may start loading, with small bounds: 2 resyncs, 2 batches of 3, 4 topics in flight. */
class AdmissionTest {
    private static final ViewLimits LIMITS = new ViewLimits(100, 100, 100, 10, 1_000, 2, 2, 3, 4,
            Duration.ofMillis(500), Duration.ofMillis(50), new Backoff(100, 30_000));
    private final Admission<String> admission = new Admission<>(LIMITS);

    @Test
    void resyncsStartInOrderWhileFewerThanTheBoundAreInFlight() {
        List.of("a", "b", "c").forEach(admission::queue);

        assertThat(start()).containsExactly("a", "b");
        assertThat(admission.nextResync()).as("both slots taken").isNull();

        admission.resyncEnded();

        assertThat(start()).containsExactly("c");
        assertThat(admission.anyWaiting()).isFalse();
        assertThat(admission.peakResyncsInFlight()).isEqualTo(2);
    }

    @Test
    void aTopicQueuedTwiceWaitsOnceInItsFirstPlace() {
        admission.queue("a");
        admission.queue("b");
        admission.queue("a");
        assertThat(admission.queue("g", "x")).isTrue();
        assertThat(admission.queue("g", "x")).isFalse();

        assertThat(start()).containsExactly("a", "b");
        assertThat(admission.nextBatch(topic -> true)).containsExactly("x");
    }

    @Test
    void aBatchTakesTopicsOfOneGroupInOrderUpToTheBatchBound() {
        List.of("a1", "a2", "a3", "a4").forEach(topic -> admission.queue("a", topic));
        admission.queue("b", "b1");

        assertThat(admission.nextBatch(topic -> true)).containsExactly("a1", "a2", "a3");
        admission.batchStarted(3);
        assertThat(admission.nextBatch(topic -> true)).as("the rest of the first group first").containsExactly("a4");
    }

    @Test
    void anotherBatchStartsOnlyWhileFewerThanTheTopicAndBatchBoundsAreInFlight() {
        List.of("a1", "a2", "a3").forEach(topic -> admission.queue("a", topic));
        List.of("b1", "b2", "b3").forEach(topic -> admission.queue("b", topic));
        List.of("c1").forEach(topic -> admission.queue("c", topic));

        admission.batchStarted(admission.nextBatch(topic -> true).size()); // 3 topics in flight
        admission.batchStarted(admission.nextBatch(topic -> true).size()); // one more batch passes: 6

        assertThat(admission.nextBatch(topic -> true)).as("past 4 topics and at 2 batches").isNull();
        admission.batchEnded(3);
        assertThat(admission.nextBatch(topic -> true)).as("still 3 topics in flight, 1 batch").containsExactly("c1");
        assertThat(admission.peakBatchesInFlight()).isEqualTo(2);
        assertThat(admission.peakBatchTopicsInFlight()).isEqualTo(6);
    }

    @Test
    void aTopicTurnedAwayLeavesTheQueueAndDoesNotCountAgainstTheBatch() {
        List.of("a1", "skip", "a2", "a3", "a4").forEach(topic -> admission.queue("a", topic));

        assertThat(admission.nextBatch(topic -> !topic.equals("skip"))).containsExactly("a1", "a2", "a3");
        assertThat(admission.nextBatch(topic -> false)).as("all turned away: ask again").isEmpty();
        assertThat(admission.anyWaiting()).isFalse();
        assertThat(admission.nextBatch(topic -> true)).as("none waits").isNull();
    }

    @Test
    void aTopicTakenOutOfItsGroupNoLongerWaits() {
        admission.queue("a", "a1");

        admission.unqueue("a", "a1");

        assertThat(admission.anyWaiting()).isFalse();
        assertThat(admission.nextBatch(topic -> true)).isNull();
    }

    private List<String> start() {
        List<String> started = new ArrayList<>();
        String topic;
        while ((topic = admission.nextResync()) != null) {
            started.add(topic);
            admission.resyncStarted();
        }
        return started;
    }
}
