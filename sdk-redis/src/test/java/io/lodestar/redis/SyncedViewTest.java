package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.lodestar.core.ClientClosedException;
import io.lodestar.core.CommandTimeoutException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.UnavailableException;
import io.lodestar.redis.internal.time.ManualClock;
import io.lodestar.redis.internal.view.ChannelRouter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The view engine on its own: a fake source whose loads the test completes by hand, a fake transport, the view
 * thread and the listeners on the test's thread, and a manual clock the test moves (retries, graces and idle expiry
 * come when it says, never by waiting). Each test is one rule that makes a view converge, driven step by step in the
 * order that used to break it.
 *
 * <p>A topic's value is the list of the values its events carried; an event {@code {rev: n, value: x}} appends
 * {@code x}; a listener hears {@code "n:x"} per event and {@code "resynced@n"} when the view re-read the topic.
 */
class SyncedViewTest {
    private static final String TOPIC = "orders";
    private static final String CHANNEL = "channel:" + TOPIC;

    private final FakeSource source = new FakeSource();
    private final RecordingTransport transport = new RecordingTransport();
    private final ManualClock clock = new ManualClock();
    private final ChannelRouter router = new ChannelRouter();
    private final Deque<Runnable> listenerTasks = new ArrayDeque<>();
    /** Concurrent: Caffeine hands a removed topic's drop over from its own executor. */
    private final Deque<Runnable> viewTasks = new ConcurrentLinkedDeque<>();
    private Executor listeners = Runnable::run;
    private SyncedView<List<String>, String> view = newView(Runnable::run);

    @AfterEach
    void stop() {
        view.close();
    }

    @Test
    void eventsHeardDuringALoadAreAppliedAfterItWhenNewerThanWhatItRead() {
        List<String> heard = subscribe();
        // the load is under way; events 1..3 arrive meanwhile
        offer(1, "a");
        offer(2, "b");
        offer(3, "c");

        source.completeLoad(2, "a", "b"); // the load read revision 2

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");
        assertThat(heard).containsExactly("3:c");
    }

    @Test
    void aRevisionGapMakesTheTopicReload() {
        List<String> heard = subscribe();
        source.completeLoad(1, "a");

        offer(3, "c"); // revision 2 was lost on the way

        assertThat(source.pendingLoads()).as("a resync load").isEqualTo(1);
        source.completeLoad(3, "a", "b", "c");
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");
        assertThat(heard).containsExactly("resynced@3");
        assertThat(view.gaps.sum()).isEqualTo(1);
    }

    @Test
    void aReconcileThatFindsRedisAheadLetsTheEventOnItsWayArriveInsteadOfReloading() {
        List<String> heard = subscribe();
        source.completeLoad(1, "a");
        source.redisRevision = 2; // a write landed; its event is still on the other connection

        view.reconcile();
        offer(2, "b"); // ... and arrives

        clock.advance(SyncedView.LIMITS.reconcileGrace().multipliedBy(2));

        assertThat(source.pendingLoads()).as("no re-read").isZero();
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b");
        assertThat(heard).containsExactly("2:b");
    }

    @Test
    void aReconcileThatFindsRedisAheadReloadsTheTopicWhenNoEventCatchesUpWithinTheGrace() {
        List<String> heard = subscribe();
        source.completeLoad(1, "a");
        source.redisRevision = 2; // the event of revision 2 was lost, and nothing was written since

        view.reconcile();

        assertThat(source.pendingLoads()).as("not at once: its event may be on the way").isZero();
        clock.advance(SyncedView.LIMITS.reconcileGrace());
        assertThat(source.pendingLoads()).as("a re-read after the grace").isEqualTo(1);
        source.completeLoad(2, "a", "b");
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b");
        assertThat(heard).containsExactly("resynced@2");
    }

    @Test
    void aReconcileThatFindsRedisBehindTheViewReloadsAtOnce() {
        List<String> heard = subscribe();
        source.completeLoad(3, "a", "b", "c");
        source.redisRevision = 1; // Redis restarted from an older snapshot: no event will ever bring it back

        view.reconcile();

        assertThat(source.pendingLoads()).as("a re-read, without a grace").isEqualTo(1);
        source.completeLoad(1, "a");
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a");
        assertThat(heard).containsExactly("resynced@1");
    }

    @Test
    void duplicateAndOlderEventsChangeNothing() {
        List<String> heard = subscribe();
        source.completeLoad(2, "a", "b");

        offer(2, "b");
        offer(1, "a");
        offer(3, "c");
        offer(3, "c");

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");
        assertThat(heard).containsExactly("3:c");
        assertThat(source.pendingLoads()).isZero();
    }

    @Test
    void anEventIsReadFromItsTextOnlyOnTheViewsChannelsAndUnreadableTextChangesNothing() {
        List<String> heard = subscribe();
        source.completeLoad(2, "a", "b");

        assertThat(router.offer("channel:not-followed", "not JSON")).as("no topic's: not read").isFalse();
        assertThatThrownBy(() -> router.offer(CHANNEL, "{\"rev\":3,")).as("unreadable: dropped by the caller")
                .isInstanceOf(RuntimeException.class);
        assertThat(router.offer(CHANNEL, "{\"rev\":3,\"value\":\"c\"}")).as("routed").isTrue();

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");
        assertThat(heard).containsExactly("3:c");
        assertThat(source.pendingLoads()).isZero();
    }

    @Test
    void eventsArrivingOutOfOrderAfterALoadAreAppliedInRevisionOrder() {
        List<String> heard = subscribe();
        offer(3, "c");
        offer(2, "b");

        source.completeLoad(1, "a");

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");
        assertThat(heard).containsExactly("2:b", "3:c");
    }

    @Test
    void aDisconnectDuringALoadMakesTheTopicLoadAgainOnceConnected() {
        subscribe();
        // the load started before the connection dropped: events of the outage may be missing from what it reads
        view.markStale();
        view.resyncAll(); // the reconnect, while the load is still under way

        source.completeLoad(1, "a");

        assertThat(source.pendingLoads()).as("a second load, started after the disconnect").isEqualTo(1);
        source.completeLoad(2, "a", "b");
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b");
        assertThat(view.api().status().stale()).isFalse();
    }

    @Test
    void aListenerAttachedWhileTheFirstLoadFailsIsStillDeliveredTo() {
        CompletableFuture<SyncedView.Versioned<List<String>>> read = view.api().loadAsync(TOPIC);
        List<String> heard = subscribe(); // attaches while the load is under way

        source.failLoad(new UnavailableException("Redis at redis://test is unreachable"));

        assertThat(read).isCompletedExceptionally();
        assertThat(view.api().held()).as("the listener keeps the topic").containsExactly(TOPIC);
        assertThat(source.pendingLoads()).as("not at once").isZero();
        clock.advance(firstRetryBound());
        assertThat(source.pendingLoads()).as("retried with backoff").isEqualTo(1);
        source.completeLoad(1, "a");
        offer(2, "b");
        assertThat(heard).containsExactly("2:b");
    }

    @Test
    void aValueRestoredLocallyIsLoadedWholeWhenRedisAnswersAndListenersHearWhatDiffers() {
        // given a local copy at revision 1, and a source that replays what a topic missed since the revision it
        // holds (config history): from revision 1 to Redis' revision 1 there is nothing to replay
        source.kept = new SyncedView.Versioned<>(1, List.of("on-disk"));
        source.replays = true;
        List<String> heard = subscribe();
        source.failLoad(new UnavailableException("Redis at redis://test is unreachable"));
        assertThat(view.api().getIfHeld(TOPIC)).as("served from the local copy").containsExactly("on-disk");

        // when Redis answers the retry with other content at the same revision (it lost its data, was written again)
        clock.advance(firstRetryBound()); // retried with backoff
        source.completeLoad(1, "in-redis");

        // then the view read it whole, not as a replay from the local copy, and the listener heard the change
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("in-redis");
        assertThat(source.reloads).as("replays").isZero();
        assertThat(heard).containsExactly("resynced@1");
    }

    @Test
    void aFailedFirstLoadWithoutListenersIsNotKept() {
        CompletableFuture<SyncedView.Versioned<List<String>>> read = view.api().loadAsync(TOPIC);

        source.failLoad(new UnavailableException("Redis at redis://test is unreachable"));

        assertThat(read).isCompletedExceptionally();
        assertThat(view.api().held()).isEmpty();
    }

    @Test
    void aListenerAttachedAsTheTopicExpiresKeepsIt() {
        view = newView(Runnable::run, Duration.ofSeconds(1));
        view.api().loadAsync(TOPIC);
        source.completeLoad(1, "a");
        clock.advance(Duration.ofSeconds(2)); // idle for longer than the timeout

        List<String> heard = subscribe(); // attaches before Caffeine's clean-up saw the expiry
        view.cleanUp();

        assertThat(view.api().held()).containsExactly(TOPIC);
        if (source.pendingLoads() > 0) { // the expired topic was replaced by a new one, which loads
            source.completeLoad(1, "a");
        }
        offer(2, "b");
        assertThat(heard).containsExactly("2:b");
    }

    @Test
    void anIdleTopicWithoutListenersIsDroppedAndUnsubscribed() throws InterruptedException {
        view = newView(Runnable::run, Duration.ofSeconds(1));
        view.api().loadAsync(TOPIC);
        source.completeLoad(1, "a");

        clock.advance(Duration.ofSeconds(2));
        view.cleanUp();

        assertThat(view.api().held()).isEmpty();
        // Caffeine tells of the removal on its own executor: a bounded wait for that thread, not for time to pass
        assertThat(transport.unsubscribes.poll(5, TimeUnit.SECONDS)).isEqualTo(CHANNEL);
        assertThat(router.route(CHANNEL)).as("no longer routed").isNull();
    }

    @Test
    void aTopicReleasedWhileItsFirstLoadIsUnderWayIsDroppedAndUnsubscribedWhenTheLoadFindsItUnneeded()
            throws InterruptedException {
        // given a topic whose listener left while its first load is under way
        view.api().subscribe(TOPIC, event -> { }).close();

        // when it is released before that load ends, and the load then finds nothing
        view.release(TOPIC, List::isEmpty);
        source.completeLoad(1);

        // then it goes with its subscription, as if released after the load
        assertThat(view.api().held()).isEmpty();
        assertThat(transport.unsubscribes.poll(5, TimeUnit.SECONDS)).isEqualTo(CHANNEL);
    }

    @Test
    void aTopicReleasedWhileItsFirstLoadIsUnderWayStaysWhenTheLoadFindsItNeeded() {
        view.api().subscribe(TOPIC, event -> { }).close();

        view.release(TOPIC, List::isEmpty);
        source.completeLoad(1, "a");

        assertThat(view.api().held()).containsExactly(TOPIC);
        assertThat(transport.unsubscribes).isEmpty();
    }

    @Test
    void aTopicReleasedWhileItsFirstLoadIsUnderWayIsDroppedAndUnsubscribedWhenTheLoadFails()
            throws InterruptedException {
        view.api().subscribe(TOPIC, event -> { }).close();

        view.release(TOPIC, List::isEmpty);
        source.failLoad(new UnavailableException("Redis at redis://test is unreachable"));

        assertThat(view.api().held()).isEmpty();
        assertThat(transport.unsubscribes.poll(5, TimeUnit.SECONDS)).isEqualTo(CHANNEL);
    }

    @Test
    void aTopicDroppedWhileItsSubscribeIsUnderWayIsUnsubscribedOnlyOnceTheSubscribeIsDone() {
        // given a loaded topic that resyncs (Redis is behind it), its subscribe not done yet
        view = newView(viewTasks::add);
        view.api().loadAsync(TOPIC);
        runViewTasks();
        source.completeLoad(1, "a");
        runViewTasks();
        transport.holdSubscribes = true;
        view.reconcile();
        runViewTasks();
        assertThat(transport.heldSubscribes()).as("the resync's subscribe, under way").isEqualTo(1);

        // when it is released meanwhile (Caffeine hands the drop to the view thread from its own executor)
        view.release(TOPIC, values -> true);
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            runViewTasks();
            return router.route(CHANNEL) == null; // dropped
        });

        // then it is not unsubscribed before its subscribe is done (an unsubscribe sent ahead of a subscribe that
        // waits for the connection would leave the channel subscribed, followed by nobody), and it is after it
        assertThat(view.api().held()).isEmpty();
        assertThat(transport.unsubscribes).as("before the subscribe is done").isEmpty();
        transport.completeSubscribes();
        source.completeLoad(1, "a");
        runViewTasks();
        assertThat(transport.unsubscribes).containsExactly(CHANNEL);
        assertThat(router.route(CHANNEL)).as("no longer routed").isNull();
    }

    @Test
    void anEventTheSourceCannotApplyIsCountedAndAnsweredByAReload() {
        List<String> heard = subscribe();
        source.completeLoad(1, "a");

        offer(Map.of("rev", 2L, "value", "b", "type", "from-a-newer-client"));

        assertThat(view.rejected.sum()).isEqualTo(1);
        assertThat(source.pendingLoads()).isEqualTo(1);
        source.completeLoad(2, "a", "b");
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b");
        assertThat(heard).containsExactly("resynced@2");
    }

    @Test
    void aFullLoadBufferIsDroppedAndTheTopicLoadsOnceMore() {
        subscribe();
        for (int rev = 1; rev <= SyncedView.LIMITS.maxBuffer() + 1; rev++) {
            offer(rev, "x");
        }

        source.completeLoad(1, "x");

        assertThat(view.overflows.sum()).isPositive();
        assertThat(source.pendingLoads()).as("the dropped events are read again").isEqualTo(1);
    }

    @Test
    void aListenerThatFallsBehindGetsOneEventFromWhatItHadToTheCurrentState() {
        listeners = listenerTasks::add; // the listener's thread runs only when the test says so
        view = newView(Runnable::run);
        List<String> heard = subscribe();
        source.completeLoad(0);
        runListenerTasks();

        int events = SyncedView.LIMITS.maxListenerQueue() + 10;
        for (int rev = 1; rev <= events; rev++) {
            offer(rev, "v" + rev);
        }
        runListenerTasks();

        assertThat(heard).hasSize(SyncedView.LIMITS.maxListenerQueue() + 1);
        assertThat(heard.subList(0, SyncedView.LIMITS.maxListenerQueue())).startsWith("1:v1")
                .endsWith(SyncedView.LIMITS.maxListenerQueue() + ":v" + SyncedView.LIMITS.maxListenerQueue());
        assertThat(heard).last().isEqualTo("resynced@" + events);
        assertThat(view.overflows.sum()).isEqualTo(1);
    }

    @Test
    void anEventOfOtherKeysMakesTheTopicReloadWholeWhateverItsRevision() {
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 5, "a", "b", "c", "d", "e");

        // the keys were lost and written again: revision 1 of new keys, no duplicate of the held revision 1
        offer(Map.of("rev", 1L, "value", "x", "inc", "keys-b"));

        assertThat(view.incarnations.sum()).isEqualTo(1);
        assertThat(source.pendingLoads()).as("a reload").isEqualTo(1);
        source.completeLoad("keys-b", 1, "x");
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("x");
        assertThat(heard).containsExactly("resynced@1");
        offer(Map.of("rev", 2L, "value", "y", "inc", "keys-b"));
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("x", "y");
        assertThat(heard).containsExactly("resynced@1", "2:y");
    }

    @Test
    void eventsWithoutAnIncarnationAreComparedByRevisionAlone() {
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 2, "a", "b");

        offer(1, "a"); // an older writer's duplicate
        offer(3, "c");

        assertThat(source.pendingLoads()).isZero();
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");
        assertThat(heard).containsExactly("3:c");
    }

    @Test
    void aPurgeMakesTheTopicReloadAndHoldItEmpty() {
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 2, "a", "b");

        offer(Map.of("rev", 2L, "type", "purged", "inc", "keys-a"));

        assertThat(source.pendingLoads()).as("a reload").isEqualTo(1);
        source.completeLoad(0);
        assertThat(view.api().getIfHeld(TOPIC)).isEmpty();
        assertThat(heard).containsExactly("resynced@0");
        assertThat(view.rejected.sum()).isZero();
    }

    @Test
    void eventsThatWaitTogetherAreAppliedAsOneBatchWithEveryListenerEventInOrder() {
        List<String> heard = subscribeStepByStep(() -> source.completeLoad(1, "a"));
        long swapsBefore = view.swaps.sum();

        // four events arrive while the view thread is busy
        offer(2, "b");
        offer(3, "c");
        offer(4, "d");
        offer(5, "e");
        runViewTasks();

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c", "d", "e");
        assertThat(view.swaps.sum() - swapsBefore).as("one new value for the batch").isEqualTo(1);
        assertThat(view.eventsApplied.sum()).isEqualTo(4);
        assertThat(heard).containsExactly("2:b", "3:c", "4:d", "5:e");
    }

    @Test
    void aGapInTheMiddleOfABatchAppliesTheEventsBeforeItThenReloads() {
        List<String> heard = subscribeStepByStep(() -> source.completeLoad(1, "a"));

        offer(2, "b");
        offer(3, "c");
        offer(5, "e"); // revision 4 was lost on the way
        offer(6, "f");
        runViewTasks();

        assertThat(view.api().getIfHeld(TOPIC)).as("the events before the gap").containsExactly("a", "b", "c");
        assertThat(view.gaps.sum()).isEqualTo(1);
        assertThat(source.pendingLoads()).as("a resync load").isEqualTo(1);
        source.completeLoad(6, "a", "b", "c", "d", "e", "f");
        runViewTasks();
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c", "d", "e", "f");
        assertThat(heard).containsExactly("2:b", "3:c", "resynced@6");
    }

    @Test
    void anEventTheSourceCannotApplyInTheMiddleOfABatchKeepsTheEventsBeforeItAndReloads() {
        List<String> heard = subscribeStepByStep(() -> source.completeLoad(1, "a"));

        offer(2, "b");
        offer(Map.of("rev", 3L, "value", "c", "type", "from-a-newer-client"));
        offer(4, "d");
        runViewTasks();

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b");
        assertThat(view.rejected.sum()).isEqualTo(1);
        assertThat(source.pendingLoads()).as("a resync load").isEqualTo(1);
        source.completeLoad(3, "a", "b", "c");
        runViewTasks();
        assertThat(view.api().getIfHeld(TOPIC)).as("the event after it, kept for after the load")
                .containsExactly("a", "b", "c", "d");
        assertThat(heard).containsExactly("2:b", "resynced@3", "4:d");
    }

    @Test
    void anEventOfOtherKeysEndsABatchAndMakesTheTopicReloadWhole() {
        List<String> heard = subscribeStepByStep(() -> source.completeLoad("keys-a", 1, "a"));

        offer(Map.of("rev", 2L, "value", "b", "inc", "keys-a"));
        offer(Map.of("rev", 3L, "value", "c")); // an older writer's event: no incarnation
        offer(Map.of("rev", 4L, "value", "x", "inc", "keys-b")); // the keys were lost and written again
        runViewTasks();

        assertThat(view.api().getIfHeld(TOPIC)).as("the events of the held keys").containsExactly("a", "b", "c");
        assertThat(view.incarnations.sum()).isEqualTo(1);
        assertThat(source.pendingLoads()).as("a reload").isEqualTo(1);
        source.completeLoad("keys-b", 4, "w", "x");
        runViewTasks();
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("w", "x");
        assertThat(heard).containsExactly("2:b", "3:c", "resynced@4");
    }

    @Test
    void eventsBufferedDuringALoadAreAppliedAfterItAsOneBatch() {
        List<String> heard = subscribe();
        for (int rev = 1; rev <= 5; rev++) {
            offer(rev, "v" + rev);
        }

        source.completeLoad(2, "v1", "v2");

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("v1", "v2", "v3", "v4", "v5");
        assertThat(view.swaps.sum()).as("one new value for the three buffered events").isEqualTo(1);
        assertThat(heard).containsExactly("3:v3", "4:v4", "5:v5");
    }

    @Test
    void aLongQueueOfEventsIsAppliedInBatchesOfAtMostTheBound() {
        List<String> heard = subscribeStepByStep(() -> source.completeLoad(0));

        int events = SyncedView.LIMITS.maxBatch() + 10;
        for (int rev = 1; rev <= events; rev++) {
            offer(rev, "v" + rev);
        }
        runViewTasks();

        assertThat(view.api().getIfHeld(TOPIC)).hasSize(events).endsWith("v" + events);
        assertThat(view.swaps.sum()).isEqualTo(2);
        assertThat(heard).hasSize(events).startsWith("1:v1").endsWith(events + ":v" + events);
    }

    @Test
    void aLoadThatDoesNotEndWithinTwiceTheCommandTimeoutFailsAsATimeoutAndIsNotKept() {
        CompletableFuture<SyncedView.Versioned<List<String>>> read = view.api().loadAsync(TOPIC);

        clock.advance(transport.timeout().multipliedBy(2).minusMillis(1));
        assertThat(read).isNotDone();
        clock.advance(Duration.ofMillis(1));

        assertThat(read).as("on the view's clock, not real time").isCompletedExceptionally();
        assertThatThrownBy(read::join).hasCauseInstanceOf(CommandTimeoutException.class);
        assertThat(view.api().held()).as("a failure is never cached").isEmpty();
    }

    @Test
    void aLoadPendingWhenTheViewClosesFailsAsClosedAtOnce() {
        CompletableFuture<SyncedView.Versioned<List<String>>> read = view.api().loadAsync(TOPIC);

        view.close();

        assertThatThrownBy(read::join).hasCauseInstanceOf(ClientClosedException.class);
    }

    @Test
    void aLoadTheClockCannotTimeFailsAsClosedRatherThanHang() {
        clock.shutDown(); // the client's scheduler stopped: it takes no timer

        CompletableFuture<SyncedView.Versioned<List<String>>> read = view.api().loadAsync(TOPIC);

        assertThatThrownBy(read::join).hasCauseInstanceOf(ClientClosedException.class);
    }

    @Test
    void aWaitForARevisionThatNeverComesEndsNormallyAfterTheCommandTimeout() {
        view.api().loadAsync(TOPIC);
        source.completeLoad(1, "a");
        int timers = clock.pending(); // the topic table's tick
        CompletableFuture<Void> written = view.api().awaitRevision(TOPIC, 2);

        clock.advance(transport.timeout().minusMillis(1));
        assertThat(written).isNotDone();
        clock.advance(Duration.ofMillis(1));

        assertThat(written).isCompleted();
        assertThat(clock.pending()).as("no timer left behind").isEqualTo(timers);
    }

    @Test
    void aWaitForARevisionEndsWhenItsEventArrivesAndCancelsItsTimer() {
        view.api().loadAsync(TOPIC);
        source.completeLoad(1, "a");
        int timers = clock.pending(); // the topic table's tick
        CompletableFuture<Void> written = view.api().awaitRevision(TOPIC, 2);

        offer(2, "b");

        assertThat(written).isCompleted();
        clock.advance(transport.timeout()); // past the grace and the deadline: neither has anything left to do
        assertThat(source.pendingLoads()).as("no re-read").isZero();
        assertThat(clock.pending()).as("no timer left behind").isEqualTo(timers);
    }

    @Test
    void aWaitForARevisionPendingWhenTheViewClosesEndsAtOnce() {
        view.api().loadAsync(TOPIC);
        source.completeLoad(1, "a");
        CompletableFuture<Void> written = view.api().awaitRevision(TOPIC, 2);

        view.close();

        assertThat(written).isCompleted();
    }

    @Test
    void aClosedViewRefusesNewReadsAndSubscriptions() {
        view.close();

        assertThatThrownBy(() -> view.api().loadAsync(TOPIC))
                .isInstanceOf(ClientClosedException.class);
        assertThatThrownBy(this::subscribe)
                .isInstanceOf(ClientClosedException.class);
    }

    // ---------------------------------------------------------------- fixtures

    private SyncedView<List<String>, String> newView(Executor viewThread) {
        return newView(viewThread, Duration.ofMinutes(10));
    }

    private SyncedView<List<String>, String> newView(Executor viewThread, Duration idle) {
        return new SyncedView<>("test", source, new SyncedView.Shared(transport, router, viewThread,
                task -> listeners.execute(task), clock, new SplittableRandom(1), SyncedView.LIMITS, idle,
                LodestarOptions.DEFAULT_VIEW_TOPIC_LIMIT, Scheduler.disabledScheduler()));
    }

    /** The longest the first retry of a failed load waits. */
    // ---------------------------------------------------------------- when Redis loses its data

    @Test
    void aLoadThatFindsTheKeysWrittenAnewWithFewerItemsKeepsServingTheHeldOnesMarkedStale() {
        source.keeps = Duration.ofSeconds(5);
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 3, "a", "b", "c");

        restartWithoutData();
        source.completeLoad("keys-b", 1, "a"); // only a's owner registered again so far

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");
        assertThat(heard).as("nothing left, for a listener").isEmpty();
        assertThat(view.api().status().stale()).isTrue();
        assertThat(view.api().status().staleReason()).contains("Redis lost its data");
        assertThat(view.dataLosses.sum()).isEqualTo(1);
    }

    @Test
    void itemsWrittenAgainWithinTheirGraceNeverLeaveAndTheViewIsFreshOnceAllAre() {
        source.keeps = Duration.ofSeconds(5);
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 3, "a", "b", "c");
        restartWithoutData();
        source.completeLoad("keys-b", 1, "a");

        offer(Map.of("rev", 2, "value", "b", "inc", "keys-b"));
        offer(Map.of("rev", 3, "value", "c", "inc", "keys-b"));
        clock.advance(Duration.ofSeconds(6));

        assertThat(view.api().getIfHeld(TOPIC)).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(heard).noneMatch(event -> event.startsWith("left:"));
        assertThat(view.api().status().stale()).isFalse();
    }

    @Test
    void anItemNotWrittenAgainWithinItsGraceLeavesThenAndListenersHearIt() {
        source.keeps = Duration.ofSeconds(5);
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 3, "a", "b", "c");
        restartWithoutData();
        source.completeLoad("keys-b", 1, "a");
        offer(Map.of("rev", 2, "value", "b", "inc", "keys-b")); // c's owner died during the outage

        clock.advance(Duration.ofMillis(4_900));
        assertThat(view.api().getIfHeld(TOPIC)).as("within its grace").contains("c");
        clock.advance(Duration.ofMillis(100));

        assertThat(view.api().getIfHeld(TOPIC)).containsExactlyInAnyOrder("a", "b");
        assertThat(heard).filteredOn(event -> event.startsWith("left:")).containsExactly("left:c");
        assertThat(view.api().status().stale()).isFalse();
    }

    @Test
    void aLoadOfTheNewKeysWhileItemsAreKeptKeepsThemWithTheirFirstDeadline() {
        source.keeps = Duration.ofSeconds(5);
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 3, "a", "b", "c");
        restartWithoutData();
        source.completeLoad("keys-b", 1, "a");
        clock.advance(Duration.ofSeconds(3));

        restartWithoutData(); // a reconnect, Redis kept the new keys: it still lacks b and c
        source.completeLoad("keys-b", 2, "a", "b");
        assertThat(view.api().getIfHeld(TOPIC)).containsExactlyInAnyOrder("a", "b", "c");
        clock.advance(Duration.ofSeconds(2));

        assertThat(view.api().getIfHeld(TOPIC)).containsExactlyInAnyOrder("a", "b");
        assertThat(heard).containsExactly("left:c");
    }

    @Test
    void anEventOfTheNewKeysLeadsToTheSameProtectionAsAReconnect() {
        source.keeps = Duration.ofSeconds(5);
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 3, "a", "b", "c");

        offer(Map.of("rev", 1, "value", "a", "inc", "keys-b")); // no disconnect seen: a failover to an empty replica
        source.completeLoad("keys-b", 1, "a");

        assertThat(view.api().getIfHeld(TOPIC)).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(heard).isEmpty();
    }

    @Test
    void aMassRemovalUnderTheSameKeysIsAppliedAtOnce() {
        source.keeps = Duration.ofSeconds(5);
        List<String> heard = subscribe();
        source.completeLoad("keys-a", 3, "a", "b", "c");

        restartWithoutData();
        source.completeLoad("keys-a", 6); // Redis kept its data: every item really left

        assertThat(view.api().getIfHeld(TOPIC)).isEmpty();
        assertThat(heard).containsExactly("resynced@6");
        assertThat(view.api().status().stale()).isFalse();
        assertThat(view.dataLosses.sum()).isZero();
    }

    @Test
    void aValueRestoredFromDiskIsReplacedWholeByWhatRedisHoldsEvenUnderNewKeys() {
        source.keeps = Duration.ofSeconds(5);
        source.kept = new SyncedView.Versioned<>(3, List.of("a", "b", "c"), null, "keys-a");
        List<String> heard = subscribe();
        source.failLoad(new UnavailableException("Redis at redis://test is unreachable"));
        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a", "b", "c");

        clock.advance(firstRetryBound());
        source.completeLoad("keys-b", 1, "a");

        assertThat(view.api().getIfHeld(TOPIC)).containsExactly("a");
        assertThat(heard).contains("resynced@1");
        assertThat(view.dataLosses.sum()).isZero();
    }

    /** A reconnect after Redis restarted: every held topic resyncs. */
    private void restartWithoutData() {
        view.markStale();
        view.resyncAll();
    }

    private static Duration firstRetryBound() {
        return Duration.ofMillis(SyncedView.LIMITS.retry().boundMillis(1));
    }

    /**
     * A view whose thread runs only when the test says so ({@link #runViewTasks}), subscribed to the topic and
     * loaded by {@code load} (which completes the subscription's load), with both steps run.
     */
    private List<String> subscribeStepByStep(Runnable load) {
        view = newView(viewTasks::add);
        List<String> heard = subscribe();
        runViewTasks();
        load.run();
        runViewTasks();
        return heard;
    }

    private List<String> subscribe() {
        List<String> heard = new CopyOnWriteArrayList<>();
        view.api().subscribe(TOPIC, heard::add);
        return heard;
    }

    private void offer(long revision, String value) {
        offer(Map.of("rev", revision, "value", value));
    }

    /** An event as Redis delivers it: JSON text on the topic's channel, read by the view's source. */
    private void offer(Map<String, Object> fields) {
        assertThat(router.offer(CHANNEL, Json.write(fields))).as("routed").isTrue();
    }

    private void runViewTasks() {
        Runnable task;
        while ((task = viewTasks.poll()) != null) {
            task.run();
        }
    }

    private void runListenerTasks() {
        Runnable task;
        while ((task = listenerTasks.poll()) != null) {
            task.run();
        }
    }

    /** Loads complete when the test says so, in the order they were asked for. */
    private static final class FakeSource extends ListSource {
        private final Deque<CompletableFuture<SyncedView.Versioned<List<String>>>> loads = new ArrayDeque<>();
        /** What a reconcile reads as the topic's revision in Redis. */
        volatile long redisRevision;
        /** The local copy a failed first load serves (null: none). */
        volatile SyncedView.Versioned<List<String>> kept;
        /** Whether a resync replays what the topic missed (none here) instead of the default whole load. */
        volatile boolean replays;
        /** Resyncs that replayed. */
        volatile int reloads;
        /** How long an item Redis lost is kept for its owner to write it again (null: the source keeps nothing). */
        volatile Duration keeps;

        @Override
        public Map<String, Duration> lost(String id, List<String> held, List<String> loaded) {
            Map<String, Duration> lost = new HashMap<>();
            if (keeps != null) {
                held.stream().filter(item -> !loaded.contains(item)).forEach(item -> lost.put(item, keeps));
            }
            return lost;
        }

        @Override
        public List<String> withKept(String id, List<String> loaded, List<String> from, Set<String> items) {
            List<String> merged = new ArrayList<>(loaded);
            from.stream().filter(items::contains).filter(item -> !loaded.contains(item)).forEach(merged::add);
            return List.copyOf(merged);
        }

        @Override
        public String item(ViewSource.Message message) {
            return (String) message.fields().get("value");
        }

        @Override
        public ViewSource.Dropped<List<String>, String> drop(String id, SyncedView.Versioned<List<String>> current,
                                                              List<String> items) {
            return new ViewSource.Dropped<>(current.value().stream().filter(item -> !items.contains(item)).toList(),
                    items.stream().map(item -> "left:" + item).toList());
        }

        @Override
        public SyncedView.Versioned<List<String>> restore(String id) {
            return kept;
        }

        @Override
        public CompletionStage<ViewSource.Reloaded<List<String>, String>> reload(
                String id, SyncedView.Versioned<List<String>> held) {
            if (!replays) {
                return super.reload(id, held);
            }
            reloads++;
            return load(id).thenApply(loaded -> new ViewSource.Reloaded<>(loaded, List.of()));
        }

        @Override
        public CompletionStage<SyncedView.Versioned<Void>> stamp(String id) {
            return CompletableFuture.completedFuture(new SyncedView.Versioned<>(redisRevision, null));
        }

        int pendingLoads() {
            synchronized (loads) {
                return loads.size();
            }
        }

        void completeLoad(long revision, String... values) {
            next().complete(new SyncedView.Versioned<>(revision, List.of(values)));
        }

        void completeLoad(String incarnation, long revision, String... values) {
            next().complete(new SyncedView.Versioned<>(revision, List.of(values), null, incarnation));
        }

        void failLoad(Throwable failure) {
            next().completeExceptionally(failure);
        }

        private CompletableFuture<SyncedView.Versioned<List<String>>> next() {
            synchronized (loads) {
                assertThat(loads).as("a load under way").isNotEmpty();
                return loads.poll();
            }
        }

        @Override
        public CompletionStage<SyncedView.Versioned<List<String>>> load(String id) {
            CompletableFuture<SyncedView.Versioned<List<String>>> load = new CompletableFuture<>();
            synchronized (loads) {
                loads.add(load);
            }
            return load;
        }
    }
}
