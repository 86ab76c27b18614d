package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.lodestar.core.LodestarOptions;
import io.lodestar.redis.internal.time.ManualClock;
import io.lodestar.redis.internal.view.ChannelRouter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The view engine with a source that loads in batches ({@link ViewSource#group}): a fake source whose batched
 * loads the test completes by hand, a transport that records each subscribe, the view thread on the test's thread and
 * a manual clock nothing moves.
 * Topics are grouped by their first letter. A topic's value is the list of the values its events carried.
 */
class SyncedViewBatchTest {
    private final BatchSource source = new BatchSource();
    private final RecordingTransport transport = new RecordingTransport();
    private final ChannelRouter router = new ChannelRouter();
    private final SyncedView<List<String>, String> view = new SyncedView<>("test", source, new SyncedView.Shared(
            transport, router, Runnable::run, Runnable::run, new ManualClock(), new SplittableRandom(1),
            SyncedView.LIMITS, Duration.ofMinutes(10), LodestarOptions.DEFAULT_VIEW_TOPIC_LIMIT,
            Scheduler.disabledScheduler()));

    @AfterEach
    void stop() {
        view.close();
    }

    @Test
    void aPreloadSubscribesAndLoadsTopicsOfAGroupTogetherWithBoundedTopicsInFlight() {
        List<String> ids = IntStream.range(0, 4_000).mapToObj(i -> (i % 2 == 0 ? "a" : "b") + i).toList();

        CompletableFuture<Void> preload = view.preload(ids);

        assertThat(source.pending.stream().mapToInt(batch -> batch.ids().size()).sum()).as("topics loading at once")
                .isBetween(SyncedView.LIMITS.maxTopicsInFlight(),
                        SyncedView.LIMITS.maxTopicsInFlight() + SyncedView.LIMITS.maxBatchTopics() - 1);
        assertThat(transport.subscribes).as("one subscribe per batch, each of one group, before its load")
                .hasSize(source.pending.size())
                .allSatisfy(channels -> assertThat(channels)
                        .hasSizeLessThanOrEqualTo(SyncedView.LIMITS.maxBatchTopics())
                        .allMatch(channel -> channel.charAt(8) == channels.get(0).charAt(8)));
        int batches = 0;
        while (!source.pending.isEmpty()) {
            assertThat(source.pending.stream().mapToInt(batch -> batch.ids().size()).sum()).as("topics in flight")
                    .isLessThan(SyncedView.LIMITS.maxTopicsInFlight() + SyncedView.LIMITS.maxBatchTopics());
            source.completeNext(1);
            batches++;
        }
        assertThat(preload).isCompleted();
        assertThat(batches).as("batches for 2 groups of 2,000").isEqualTo(2 * (int) Math.ceil(2000.0
                / SyncedView.LIMITS.maxBatchTopics()));
        assertThat(ids).allSatisfy(id -> assertThat(view.api().getIfHeld(id)).containsExactly(id + "@1"));
        assertThat(view.peakBatchTopicsInFlight()).isBetween(SyncedView.LIMITS.maxTopicsInFlight(),
                SyncedView.LIMITS.maxTopicsInFlight() + SyncedView.LIMITS.maxBatchTopics() - 1);
    }

    @Test
    void smallGroupsLoadAsManyBatchesAtOnceAsTheBatchBoundAllows() {
        // given 100 groups of 10 topics (as a cluster's buckets: one batch each, far below the topic bound)
        List<String> ids = IntStream.range(0, 1_000).mapToObj(i -> (char) ('!' + i % 100) + "-" + i).toList();

        view.preload(ids);

        assertThat(source.pending).as("batches loading at once").hasSize(SyncedView.LIMITS.maxConcurrentBatches());
        while (!source.pending.isEmpty()) {
            assertThat(source.pending.size()).isLessThanOrEqualTo(SyncedView.LIMITS.maxConcurrentBatches());
            source.completeNext(1);
        }
        assertThat(ids).allSatisfy(id -> assertThat(view.api().getIfHeld(id)).containsExactly(id + "@1"));
        assertThat(view.peakBatchesInFlight()).isEqualTo(SyncedView.LIMITS.maxConcurrentBatches());
    }

    @Test
    void eventsHeardDuringABatchedLoadAreAppliedAfterEachTopicsLoadedRevisionAndAGapResyncsOnlyItsTopic() {
        CompletableFuture<Void> preload = view.preload(List.of("a1", "a2"));
        offer("a1", 2, "x"); // published after the load read revision 1 of a1
        offer("a2", 3, "y"); // a2's revision 2 was lost on the way

        source.completeNext(1);

        assertThat(preload).isCompleted();
        assertThat(view.api().getIfHeld("a1")).containsExactly("a1@1", "x");
        assertThat(source.pending).as("a resync of a2 alone").hasSize(1);
        assertThat(source.pending.peek().ids()).containsExactly("a2");
        source.completeNext(3);
        assertThat(view.api().getIfHeld("a2")).containsExactly("a2@3");
    }

    @Test
    void aReconnectResyncsHeldTopicsInBatches() {
        List<String> ids = IntStream.range(0, 600).mapToObj(i -> "a" + i).toList();
        view.preload(ids);
        while (!source.pending.isEmpty()) {
            source.completeNext(1);
        }
        transport.subscribes.clear();
        view.markStale();

        view.resyncAll();

        assertThat(source.pending).as("batches of every held topic").hasSize(3);
        while (!source.pending.isEmpty()) {
            source.completeNext(5);
        }
        assertThat(ids).allSatisfy(id -> assertThat(view.api().getIfHeld(id)).containsExactly(id + "@5"));
        assertThat(transport.subscribes).hasSize(3);
        assertThat(view.api().status().stale()).isFalse();
    }

    @Test
    void onATransportThatReportsEachRenewedSubscriptionOnlyTheReportedTopicsResyncAfterADrop() {
        // given a cluster-like transport and three held topics
        transport.reportsResubscriptions = true;
        view.preload(List.of("a1", "a2", "a3"));
        source.completeNext(1);

        // when a connection drops, the reconnect's resync runs, and the subscription of one topic is renewed
        view.markStale();
        view.resyncAll();
        assertThat(source.pending).as("loads after the drop alone").isEmpty();
        assertThat(router.resubscribed("channel:a2")).isTrue();

        // then only that topic is read again, once, and the view is fresh after it
        assertThat(source.pending).hasSize(1);
        assertThat(source.pending.peek().ids()).containsExactly("a2");
        source.completeNext(2);
        assertThat(source.pending).isEmpty();
        assertThat(view.api().getIfHeld("a2")).containsExactly("a2@2");
        assertThat(view.api().status().stale()).isFalse();
    }

    @Test
    void onATransportThatReportsEachRenewedSubscriptionADropAtAnotherNodeDuringALoadDoesNotReadAgain() {
        // given a cluster-like transport and a load under way
        transport.reportsResubscriptions = true;
        view.preload(List.of("a1"));

        // when a connection drops before it completes (a node carrying other topics' subscriptions)
        view.markStale();
        source.completeNext(1);

        // then the topic is held and nothing is read again: its own subscription was not reported renewed
        assertThat(view.api().getIfHeld("a1")).containsExactly("a1@1");
        assertThat(source.pending).isEmpty();
    }

    @Test
    void onAStandaloneTransportADropDuringALoadReadsTheTopicAgain() {
        // given a load under way
        view.preload(List.of("a1"));

        // when the connection drops before it completes (Lettuce renews the subscription unreported)
        view.markStale();
        source.completeNext(1);

        // then it is read again: it may have read Redis before changes it then missed
        assertThat(source.pending).hasSize(1);
        assertThat(source.pending.peek().ids()).containsExactly("a1");
    }

    @Test
    void aResyncHandsTheSourceWhatTheViewHoldsAndTakesItBackUnchangedWithoutTellingListeners() {
        // given two held topics, one with a listener
        view.preload(List.of("a1", "a2"));
        assertThat(source.pending.peek().known()).as("a first load knows nothing").containsExactly(null, null);
        source.completeNext(1);
        List<String> heard = new ArrayList<>();
        view.api().subscribe("a1", heard::add);
        view.markStale();

        // when a reconnect resyncs them and the source answers with what it was handed (Redis unchanged)
        view.resyncAll();
        BatchLoad resync = source.pending.poll();
        assertThat(resync.known()).extracting(SyncedView.Versioned::value)
                .containsExactly(List.of("a1@1"), List.of("a2@1"));
        for (int i = 0; i < resync.ids().size(); i++) {
            resync.loads().get(i).complete(resync.known().get(i));
        }

        // then the view holds the same, listeners hear nothing, and it is fresh
        assertThat(view.api().getIfHeld("a1")).containsExactly("a1@1");
        assertThat(heard).isEmpty();
        assertThat(view.api().status().stale()).isFalse();
    }

    private void offer(String id, long revision, String value) {
        assertThat(router.offer("channel:" + id, Json.write(Map.of("rev", revision, "value", value)))).as("routed")
                .isTrue();
    }

    /** A batch of loads, completed when the test says so. */
    private record BatchLoad(List<String> ids, List<SyncedView.Versioned<List<String>>> known,
                         List<CompletableFuture<SyncedView.Versioned<List<String>>>> loads) {
    }

    private static final class BatchSource extends ListSource {
        final Deque<BatchLoad> pending = new ArrayDeque<>();

        /** Completes the oldest batch: each topic at that revision, its value "id@revision". */
        void completeNext(long revision) {
            BatchLoad batch = pending.poll();
            for (int i = 0; i < batch.ids().size(); i++) {
                batch.loads().get(i).complete(new SyncedView.Versioned<>(revision,
                        List.of(batch.ids().get(i) + "@" + revision)));
            }
        }

        @Override
        public Object group(String id) {
            return id.charAt(0);
        }

        @Override
        public List<CompletableFuture<SyncedView.Versioned<List<String>>>> loadAll(List<String> ids,
                List<SyncedView.Versioned<List<String>>> known) {
            List<CompletableFuture<SyncedView.Versioned<List<String>>>> loads = new ArrayList<>();
            ids.forEach(id -> loads.add(new CompletableFuture<>()));
            pending.add(new BatchLoad(List.copyOf(ids), new ArrayList<>(known), loads));
            return loads;
        }

        @Override
        public CompletionStage<SyncedView.Versioned<List<String>>> load(String id) {
            return loadAll(List.of(id), Collections.singletonList(null)).get(0);
        }
    }
}
