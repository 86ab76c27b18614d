package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Scheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A view's table of topics on its own: idle expiry with a clock the test moves, pins, channels. */
class TopicTableTest {
    private static final Duration IDLE = Duration.ofSeconds(1);

    private final AtomicLong nanos = new AtomicLong(1);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<String> removed = new CopyOnWriteArrayList<>();
    private final TopicTable<FakeTopic, String> table = new TopicTable<>(FakeTopic::new, IDLE, nanos::get,
            Scheduler.disabledScheduler(), scheduler, topic -> removed.add(topic.id));

    @AfterEach
    void stop() {
        table.close();
        scheduler.shutdownNow();
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
    void aChannelRoutesToTheTopicThatFollowsIt() {
        FakeTopic topic = table.getOrCreate("orders");

        table.follow(topic);

        assertThat(table.following("channel:orders")).isSameAs(topic);
        assertThat(table.unfollow(topic)).isTrue();
        assertThat(table.following("channel:orders")).isNull();
        assertThat(table.unfollow(topic)).as("already unfollowed").isFalse();
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
