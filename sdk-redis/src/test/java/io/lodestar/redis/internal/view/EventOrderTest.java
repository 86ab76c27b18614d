package io.lodestar.redis.internal.view;

import io.lodestar.redis.internal.view.EventOrder.Verdict;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where an event stands against the held value, as a table of cases: the held revision 5 of keys "a" unless a test
 * says otherwise.
 */
class EventOrderTest {
    private static final long MAX_STEP = 1_000;
    private final EventOrder order = new EventOrder(MAX_STEP);
    private final Stamp held = new Stamp(5, "a");

    @Test
    void theNextRevisionIsApplied() {
        assertThat(order.decide(held, false, event(6, "a"))).isEqualTo(Verdict.APPLY);
    }

    @Test
    void anEventPastTheNextRevisionIsAGap() {
        assertThat(order.decide(held, false, event(7, "a"))).isEqualTo(Verdict.GAP);
    }

    @Test
    void anOlderEventIsADuplicateAndOneOfTheHeldRevisionIsLeftToTheSource() {
        assertThat(order.decide(held, false, event(4, "a"))).isEqualTo(Verdict.DUPLICATE);
        assertThat(order.decide(held, false, event(5, "a"))).isEqualTo(Verdict.HELD_REVISION);
    }

    @Test
    void whileTheTopicLoadsEveryEventOfItsKeysIsBufferedWhateverItsRevision() {
        assertThat(order.decide(held, true, event(2, "a"))).isEqualTo(Verdict.BUFFER);
        assertThat(order.decide(held, true, event(9, "a"))).isEqualTo(Verdict.BUFFER);
        assertThat(order.decide(null, true, event(1, "a"))).as("a first load").isEqualTo(Verdict.BUFFER);
    }

    @Test
    void anEventOfOtherKeysIsNeitherADuplicateNorAGap() {
        assertThat(order.decide(held, false, event(1, "b"))).isEqualTo(Verdict.OTHER_INCARNATION);
        assertThat(order.decide(held, false, event(6, "b"))).isEqualTo(Verdict.OTHER_INCARNATION);
        assertThat(order.decide(held, true, event(1, "b"))).as("while loading: the load tells")
                .isEqualTo(Verdict.BUFFER);
    }

    @Test
    void anUnknownIncarnationIsComparedByRevisionAlone() {
        assertThat(order.decide(held, false, event(6, null))).isEqualTo(Verdict.APPLY);
        assertThat(order.decide(new Stamp(5, null), false, event(6, "b"))).isEqualTo(Verdict.APPLY);
    }

    @Test
    void anEventImpossiblyFarAheadIsDroppedEvenWhileLoading() {
        assertThat(order.decide(held, false, event(5 + MAX_STEP + 1, "a"))).isEqualTo(Verdict.TOO_FAR);
        assertThat(order.decide(held, true, event(5 + MAX_STEP + 1, "a"))).isEqualTo(Verdict.TOO_FAR);
        assertThat(order.decide(held, false, event(5 + MAX_STEP, "a"))).as("at the bound: a gap")
                .isEqualTo(Verdict.GAP);
    }

    @Test
    void aPurgeReloadsOrAfterALoadUnderWayLoadsOnceMore() {
        assertThat(order.decide(held, false, purge(6, "a"))).isEqualTo(Verdict.PURGED);
        assertThat(order.decide(held, false, purge(2, "a"))).as("whatever its revision").isEqualTo(Verdict.PURGED);
        assertThat(order.decide(held, true, purge(6, "a"))).isEqualTo(Verdict.PURGED_WHILE_LOADING);
    }

    @Test
    void anEventForATopicThatHoldsNothingAndDoesNotLoadChangesNothing() {
        assertThat(order.decide(null, false, event(1, "a"))).isEqualTo(Verdict.UNHELD);
        assertThat(order.decide(null, false, purge(1, "a"))).isEqualTo(Verdict.UNHELD);
    }

    @Test
    void aBatchRunsWhileRevisionsFollowOneAnotherOnTheSameKeys() {
        assertThat(EventOrder.follows(event(6, "a"), event(7, "a"), "a")).isTrue();
        assertThat(EventOrder.follows(event(6, "a"), event(7, null), "a")).as("an older writer's").isTrue();
        assertThat(EventOrder.follows(event(6, "a"), event(8, "a"), "a")).as("a gap").isFalse();
        assertThat(EventOrder.follows(event(6, "a"), event(7, "b"), "a")).as("other keys").isFalse();
        assertThat(EventOrder.follows(event(6, "a"), purge(7, "a"), "a")).as("a purge").isFalse();
        assertThat(EventOrder.incarnationAfter("a", event(7, null))).isEqualTo("a");
        assertThat(EventOrder.incarnationAfter(null, event(7, "b"))).isEqualTo("b");
    }

    @Test
    void afterALoadTheBufferedEventsThatFollowItAreTheNextBatchInRevisionOrder() {
        List<Event> buffer = List.of(event(7, "a"), event(4, "a"), event(6, "a"), event(5, "a"));

        EventOrder.AfterLoad<Event> after = order.afterLoad(buffer, 0, new Stamp(5, "a"));

        assertThat(after.next()).extracting(Event::revision).containsExactly(6L, 7L);
        assertThat(after.gapAt()).isEqualTo(-1);
        assertThat(after.impossible()).isEmpty();
        assertThat(after.keysChangedAgain()).isFalse();
    }

    @Test
    void afterALoadAMissingRevisionIsAGapAndWhatFollowsItWaitsForTheNextLoad() {
        List<Event> buffer = List.of(event(6, "a"), event(8, "a"), event(9, "a"));

        EventOrder.AfterLoad<Event> after = order.afterLoad(buffer, 0, new Stamp(5, "a"));

        assertThat(after.next()).extracting(Event::revision).containsExactly(6L);
        assertThat(after.fromGap()).extracting(Event::revision).containsExactly(8L, 9L);
        assertThat(after.after(buffer.get(0))).extracting(Event::revision).containsExactly(8L, 9L);
    }

    @Test
    void anEventHeardBeforeTheLoadStartedPastWhatItReadIsOneRedisNeverHad() {
        List<Event> buffer = List.of(event(7, "a"), event(6, "a"));

        EventOrder.AfterLoad<Event> after = order.afterLoad(buffer, 1, new Stamp(5, "a"));

        assertThat(after.impossible()).extracting(Event::revision).containsExactly(7L);
        assertThat(after.next()).extracting(Event::revision).containsExactly(6L);
    }

    @Test
    void anEventOfOtherKeysIsDroppedAndLoadsAgainOnlyWhenHeardAfterTheLoadStarted() {
        List<Event> buffer = List.of(event(3, "old"), event(6, "a"), event(1, "new"));

        EventOrder.AfterLoad<Event> before = order.afterLoad(buffer.subList(0, 2), 1, new Stamp(5, "a"));
        EventOrder.AfterLoad<Event> after = order.afterLoad(buffer, 1, new Stamp(5, "a"));

        assertThat(before.keysChangedAgain()).as("of the keys the load replaced").isFalse();
        assertThat(before.next()).extracting(Event::revision).containsExactly(6L);
        assertThat(after.keysChangedAgain()).as("the keys changed again since").isTrue();
        assertThat(after.kept()).extracting(Event::incarnation).containsOnly("a");
    }

    private static Event event(long revision, String incarnation) {
        return new Event(revision, incarnation, false);
    }

    private static Event purge(long revision, String incarnation) {
        return new Event(revision, incarnation, true);
    }

    private record Stamp(long revision, String incarnation) implements EventOrder.Stamp {
    }

    private record Event(long revision, String incarnation, boolean purged) implements EventOrder.Event {
    }
}
