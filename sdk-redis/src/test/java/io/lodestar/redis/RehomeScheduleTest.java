package io.lodestar.redis;

import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Rounds are recorded as (attempt, ms of the manual clock when it started); the test ends each round itself. */
class RehomeScheduleTest {
    private final ManualClock clock = new ManualClock();
    private final List<long[]> rounds = new ArrayList<>();
    private boolean needed = true;
    private final RehomeSchedule schedule = new RehomeSchedule(clock, () -> needed,
            attempt -> rounds.add(new long[] {attempt, clock.nanoTime() / 1_000_000}));

    @Test
    void theFirstRoundWaitsAShortDelaySoABurstOfDropsSharesIt() {
        schedule.orphaned();
        schedule.orphaned();
        schedule.orphaned();

        clock.advance(Duration.ofSeconds(1));

        assertThat(rounds).hasSize(1);
        assertThat(rounds.get(0)).containsExactly(0, RehomeSchedule.FIRST_DELAY_MS);
    }

    @Test
    void aRoundWithoutProgressIsRetriedEveryIntervalThenSlowly() {
        schedule.orphaned();
        clock.advance(Duration.ofMillis(RehomeSchedule.FIRST_DELAY_MS));
        for (int attempt = 0; attempt < RehomeSchedule.FAST_ATTEMPTS + 2; attempt++) {
            assertThat(rounds).hasSize(attempt + 1);
            long startedAt = rounds.get(attempt)[1];
            schedule.roundDone(attempt, false);
            long expected = attempt + 1 <= RehomeSchedule.FAST_ATTEMPTS ? RehomeSchedule.INTERVAL_MS
                    : RehomeSchedule.SLOW_INTERVAL_MS;
            clock.advance(Duration.ofMillis(expected - 1));
            assertThat(rounds).as("nothing before %d ms", expected).hasSize(attempt + 1);
            clock.advance(Duration.ofMillis(1));
            assertThat(rounds.get(attempt + 1)).containsExactly(attempt + 1, startedAt + expected);
        }
    }

    @Test
    void progressStartsTheNextRoundAfterTheShortDelay() {
        schedule.orphaned();
        clock.advance(Duration.ofMillis(10));
        schedule.roundDone(0, false);
        clock.advance(Duration.ofMillis(250));

        schedule.roundDone(1, true);
        clock.advance(Duration.ofMillis(RehomeSchedule.FIRST_DELAY_MS));

        assertThat(rounds.get(2)).containsExactly(0, 270);
    }

    @Test
    void aChangeCutsTheWaitForTheNextRoundShort() {
        // given a round that found the owner unreachable and waits the interval
        schedule.orphaned();
        clock.advance(Duration.ofMillis(10));
        schedule.roundDone(0, false);
        clock.advance(Duration.ofMillis(50));

        // when a node comes back
        schedule.retrySoon();
        clock.advance(Duration.ofMillis(RehomeSchedule.FIRST_DELAY_MS));

        // then the round starts now, and the one it replaced never runs
        assertThat(rounds).hasSize(2);
        assertThat(rounds.get(1)).containsExactly(0, 70);
        clock.advance(Duration.ofSeconds(1));
        assertThat(rounds).hasSize(2);
    }

    @Test
    void aChangeDuringARoundIsFollowedByARoundAtOnce() {
        schedule.orphaned();
        clock.advance(Duration.ofMillis(10));

        schedule.retrySoon(); // while round 0 runs
        assertThat(rounds).hasSize(1);
        schedule.roundDone(0, false);
        clock.advance(Duration.ofMillis(RehomeSchedule.FIRST_DELAY_MS));

        assertThat(rounds.get(1)).containsExactly(0, 20);
    }

    @Test
    void oneRoundAtATime() {
        schedule.orphaned();
        clock.advance(Duration.ofMillis(10));

        schedule.orphaned();
        clock.advance(Duration.ofSeconds(5));

        assertThat(rounds).hasSize(1);
    }

    @Test
    void nothingIsScheduledWhenNothingIsOrphaned() {
        needed = false;

        schedule.orphaned();
        schedule.retrySoon();
        clock.advance(Duration.ofSeconds(5));

        assertThat(rounds).isEmpty();
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aRoundThatLeftNothingOrphanedIsTheLast() {
        schedule.orphaned();
        clock.advance(Duration.ofMillis(10));
        needed = false;

        schedule.roundDone(0, true);
        clock.advance(Duration.ofSeconds(5));

        assertThat(rounds).hasSize(1);
    }

    @Test
    void aShutDownClockSchedulesNothingAndLeavesNoRoundBusy() {
        clock.shutDown();

        schedule.orphaned();

        assertThat(rounds).isEmpty();
    }
}
