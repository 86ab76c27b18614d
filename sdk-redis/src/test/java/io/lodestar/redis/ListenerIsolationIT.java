package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener that blocks (a bug in the application) holds up nobody: not other listeners, not the view, not the
 * client's writes; its own queue is bounded, and once it runs again it gets the current state in one event.
 */
class ListenerIsolationIT extends NamespaceTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    /** Enough versions to overflow one listener's queue. */
    private static final int VERSIONS = SyncedView.LIMITS.maxListenerQueue() + 200;

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aStuckListenerStallsNoOtherListenerAndCatchesUpWithTheCurrentState() throws InterruptedException {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect();
        CountDownLatch release = new CountDownLatch(1);
        List<Long> stuckSaw = new CopyOnWriteArrayList<>();
        List<Long> healthySaw = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", event -> {
            awaitRelease(release);
            stuckSaw.add(event.version());
        });
        reader.config().subscribe("app", event -> healthySaw.add(event.version()));

        try {
            // when far more versions are written than the stuck listener's queue holds
            long last = writeVersions(writer, VERSIONS);

            // then the other listener gets every version, in order, and the view is current
            await().atMost(BOUND).untilAsserted(() -> assertThat(healthySaw).hasSize(VERSIONS));
            assertThat(healthySaw).isSorted().doesNotHaveDuplicates();
            assertThat(reader.config().get("app")).hasValueSatisfying(entry ->
                    assertThat(entry.version()).isEqualTo(last));
            assertThat(reader.views().get("config").overflows.sum()).isPositive();
        } finally {
            release.countDown();
        }
        // and once released, the stuck one works off its bounded queue and ends on the current version
        long current = reader.config().get("app").orElseThrow().version();
        await().atMost(BOUND).untilAsserted(() -> assertThat(stuckSaw).last().isEqualTo(current));
        // the event it was stuck in, its full queue, and the one catch-up event
        assertThat(stuckSaw).hasSizeLessThanOrEqualTo(1 + SyncedView.LIMITS.maxListenerQueue() + 1).isSorted();
    }

    @Test
    void aStuckListenerGetsTheMissedStateAsOneChangedEvent() throws InterruptedException {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        CountDownLatch release = new CountDownLatch(1);
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", event -> {
            awaitRelease(release);
            events.add(event);
        });

        long last;
        try {
            last = writeVersions(writer, VERSIONS);
            // the reader's view hears the last writes a little later: released before, the listener could catch up
            // to a version just before the last and then get the last ones one by one
            await().atMost(BOUND).until(() -> reader.config().get("app").orElseThrow().version() == last);
        } finally {
            release.countDown();
        }

        await().atMost(BOUND).untilAsserted(() -> assertThat(events).last().satisfies(event -> {
            assertThat(event).isInstanceOf(ConfigChanged.class);
            assertThat(((ConfigChanged) event).entry().content()).isEqualTo("v" + last);
        }));
        assertThat(events.get(events.size() - 2).version()).as("versions skipped in one step")
                .isLessThan(last - 1);
    }

    /** Writes versions 1..n of config "app", many in flight at a time; returns the last version. */
    private static long writeVersions(LodestarClient writer, int count) {
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            inFlight.add(writer.config().async().set("app", "v" + i, ConfigFormat.TEXT).toCompletableFuture());
            if (inFlight.size() == 64) {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS)
                        .join();
                inFlight.clear();
            }
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
        return count;
    }

    private static void awaitRelease(CountDownLatch release) {
        try {
            if (!release.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
