package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.lodestar.redis.internal.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A view's table of topics on its own: idle expiry with a clock the test moves, pins. */
class TopicTableTest {
    private static final Duration IDLE = Duration.ofSeconds(1);

    private final AtomicLong nanos = new AtomicLong(1);
    /** Time the test moves; what the table schedules never runs: the table's own ticks never come, the test ticks. */
    private final Clock clock = new Clock() {
        @Override
        public long nanoTime() {
            return nanos.get();
        }

        @Override
        public Instant instant() {
            return Instant.EPOCH.plusNanos(nanos.get());
        }

        @Override
        public Scheduled schedule(Runnable task, long delay, TimeUnit unit) {
            return () -> true;
        }
    };
    private final List<String> removed = new CopyOnWriteArrayList<>();
    private final List<String> dropped = new CopyOnWriteArrayList<>();
    private final TopicTable<FakeTopic, String> table = table(IDLE, 1_000);

    private TopicTable<FakeTopic, String> table(Duration idle, int limit) {
        return new TopicTable<>(FakeTopic::new, idle, limit, clock, Scheduler.disabledScheduler(),
                topic -> removed.add(topic.id), topic -> dropped.add(topic.id));
    }

    @AfterEach
    void stop() {
        table.close();
    }

    @Test
    void anUnpinnedTopicNobodyReadsExpiresAndIsReportedRemovedAPinnedOneStays() {
        FakeTopic idle = table.getOrCreate("idle");
        FakeTopic pinned = table.getOrCreate("pinned");
        pinned.pinned = true;
        table.pin("pinned", pinned);

        nanos.addAndGet(IDLE.multipliedBy(2).toNanos());
        table.cleanUp();

        assertThat(table.ids()).containsExactly("pinned");
        assertThat(table.isLive(idle)).isFalse();
        assertThat(table.isLive(pinned)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> removed.contains("idle")); // on Caffeine's executor
    }

    @Test
    void pastTheLimitANewTopicDropsTheOneReadLeastRecently() {
        // given a table of three topics made two minutes apart (Caffeine's timer tells minutes apart at this idle
        // timeout), the oldest of which was read last
        Duration idle = Duration.ofMinutes(10);
        try (TopicTable<FakeTopic, String> limited = table(idle, 3)) {
            for (String id : List.of("a", "b", "c")) {
                limited.publish(limited.getOrCreate(id), id);
                nanos.addAndGet(Duration.ofMinutes(2).toNanos());
            }
            assertThat(limited.read("a")).isEqualTo("a");
            limited.tick();
            limited.tick(); // the read of a is reported

            // when a fourth topic comes
            limited.getOrCreate("d");

            // then b, read least recently, is dropped, reported as dropped and as removed
            assertThat(limited.ids()).containsExactlyInAnyOrder("a", "c", "d");
            assertThat(dropped).containsExactly("b");
            await().atMost(Duration.ofSeconds(5)).until(() -> removed.contains("b"));
        }
    }

    @Test
    void theLimitNeverDropsAPinnedTopic() {
        try (TopicTable<FakeTopic, String> limited = table(Duration.ofMinutes(10), 2)) {
            FakeTopic pinned = limited.getOrCreate("pinned");
            pinned.pinned = true;
            limited.pin("pinned", pinned);
            nanos.addAndGet(Duration.ofMinutes(2).toNanos());
            limited.getOrCreate("b");
            nanos.addAndGet(Duration.ofMinutes(2).toNanos());

            limited.getOrCreate("c");

            assertThat(limited.ids()).containsExactlyInAnyOrder("pinned", "c");
            assertThat(dropped).containsExactly("b");
        }
    }

    @Test
    void aTableOfPinnedTopicsOnlyMayHoldMoreThanItsLimit() {
        try (TopicTable<FakeTopic, String> limited = table(Duration.ofMinutes(10), 2)) {
            for (String id : List.of("a", "b", "c")) {
                limited.attach(id, topic -> topic.pinned = true);
            }

            assertThat(limited.ids()).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(dropped).isEmpty();
        }
    }

    @Test
    void attachingAfterTheTopicExpiredMakesANewOne() {
        FakeTopic old = table.getOrCreate("orders");
        nanos.addAndGet(IDLE.multipliedBy(2).toNanos());
        table.cleanUp();

        FakeTopic attached = table.attach("orders", topic -> topic.pinned = true);

        assertThat(attached).isNotSameAs(old);
        assertThat(attached.pinned).isTrue();
        assertThat(table.live("orders")).isSameAs(attached);
    }

    @Test
    void attachingToALiveTopicKeepsIt() {
        FakeTopic live = table.getOrCreate("orders");

        assertThat(table.attach("orders", topic -> topic.pinned = true)).isSameAs(live);
    }

    @Test
    void aTopicIsRemovedOnlyWhileItIsTheIdsAndRemovable() {
        FakeTopic topic = table.getOrCreate("orders");

        table.removeIf("orders", topic, held -> held.pinned);
        assertThat(table.live("orders")).isSameAs(topic);

        table.removeIf("orders", topic, held -> true);
        assertThat(table.live("orders")).isNull();
        assertThat(table.size()).isZero();
    }

    @Test
    void aPublishedValueIsReadUntilTheTopicIsRemoved() {
        FakeTopic topic = table.getOrCreate("orders");
        assertThat(table.read("orders")).as("no value yet").isNull();

        table.publish(topic, "v1");
        assertThat(table.read("orders")).isEqualTo("v1");
        table.publish(topic, "v2");
        assertThat(table.read("orders")).isEqualTo("v2");

        table.removeIf("orders", topic, held -> true);
        assertThat(table.read("orders")).isNull();
    }

    @Test
    void aLatePublishOfATopicThatStoppedBeingLiveIsNeverRead() {
        // given a topic removed while the view thread was about to publish its new value
        FakeTopic topic = table.getOrCreate("orders");
        table.publish(topic, "v1");
        table.removeIf("orders", topic, held -> true);

        // when the publish lands after the removal
        table.publish(topic, "v2");

        // then the dead topic's value is not readable, now or once the id has a new topic
        assertThat(table.read("orders")).isNull();
        FakeTopic next = table.getOrCreate("orders");
        assertThat(next).isNotSameAs(topic);
        assertThat(table.read("orders")).isNull();
    }

    @Test
    void aNewTopicNeverServesTheValueOfTheExpiredOneItReplacesNorLosesItsOwnToItsEviction() {
        // given a topic with a value that expired, hidden by Caffeine but not evicted yet
        FakeTopic old = table.getOrCreate("orders");
        table.publish(old, "old");
        nanos.addAndGet(IDLE.multipliedBy(2).toNanos());

        // when a listener attaches (a new topic replaces it) and the old one still publishes late
        FakeTopic attached = table.attach("orders", topic -> topic.pinned = true);
        assertThat(attached).isNotSameAs(old);
        assertThat(table.read("orders")).as("the new topic has no value yet").isNull();
        table.publish(old, "late");
        assertThat(table.read("orders")).as("the old topic is not live").isNull();

        // then the new topic's value is read, and stays when the old one is evicted
        table.publish(attached, "new");
        table.cleanUp();
        assertThat(table.read("orders")).isEqualTo("new");
        assertThat(table.isLive(attached)).isTrue();
        assertThat(table.isLive(old)).isFalse();
    }

    @Test
    void aTopicReadWithinTheIdleTimeoutIsKeptAndOneNobodyReadsExpires() {
        // given two topics with values
        table.publish(table.getOrCreate("read"), "r");
        table.publish(table.getOrCreate("idle"), "i");

        // when one is read every 3/4 of the idle timeout, and the reads are reported (within two ticks)
        for (int round = 0; round < 3; round++) {
            nanos.addAndGet(IDLE.toNanos() * 3 / 4);
            assertThat(table.read("read")).isEqualTo("r");
            table.tick();
            table.tick();
        }
        table.cleanUp();

        // then the one read is still held, with its value; the other expired and its value is gone
        assertThat(table.ids()).containsExactly("read");
        assertThat(table.read("read")).isEqualTo("r");
        assertThat(table.read("idle")).isNull();
    }

    @Test
    void aReadIsNotReportedBeforeTheSecondTickSoNoMarkInFlightIsLost() {
        // given a topic read once
        table.publish(table.getOrCreate("orders"), "v");
        nanos.addAndGet(IDLE.toNanos() / 2);
        table.read("orders");

        // when one tick retires the bit set the read marked
        table.tick();
        nanos.addAndGet(IDLE.toNanos() * 3 / 4); // 1.25 idle timeouts since the topic was made
        table.cleanUp();
        // then the read is not reported yet (a read marking the set as it was retired would be missed)
        assertThat(table.ids()).isEmpty();
    }

    @Test
    void aReadIsReportedAtTheSecondTick() {
        // given a topic read once, half an idle timeout after it was made
        table.publish(table.getOrCreate("orders"), "v");
        nanos.addAndGet(IDLE.toNanos() / 2);
        table.read("orders");

        // when two ticks pass, then more than the idle timeout since the topic was made, less since the report
        table.tick();
        table.tick();
        nanos.addAndGet(IDLE.toNanos() * 3 / 4);
        table.cleanUp();

        // then it is still held
        assertThat(table.ids()).containsExactly("orders");
    }

    @Test
    void closingMakesEveryValueUnreadableAndALaterPublishChangesNothing() {
        FakeTopic topic = table.getOrCreate("orders");
        table.publish(topic, "v");

        table.close();
        table.publish(topic, "late");

        assertThat(table.read("orders")).isNull();
        assertThat(table.size()).isZero();
    }

    @Test
    void theReadBitSetHasTwoToFourBitsPerTopicAndAtLeast4096() {
        assertThat(new TopicTable.Reads(0).bits()).isEqualTo(4096);
        assertThat(new TopicTable.Reads(10_000).bits()).isEqualTo(32_768);
        assertThat(new TopicTable.Reads(16_384).bits()).isEqualTo(32_768);
        assertThat(new TopicTable.Reads(16_385).bits()).isEqualTo(65_536);
        assertThat(new TopicTable.Reads(100_000).bits()).isEqualTo(262_144);
        assertThat(new TopicTable.Reads(10_000).fits(12_000)).isTrue();
        assertThat(new TopicTable.Reads(10_000).fits(20_000)).isFalse();
    }

    private static final class FakeTopic extends TopicTable.Entry {
        volatile boolean pinned;

        FakeTopic(String id) {
            super(id, "channel:" + id);
        }

        @Override
        boolean pinned() {
            return pinned;
        }
    }
}
