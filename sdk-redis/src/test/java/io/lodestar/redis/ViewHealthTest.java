package io.lodestar.redis;

import io.lodestar.core.ViewStatus;
import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A view's freshness on its own, with a clock the test moves. */
class ViewHealthTest {
    private final ManualClock clock = new ManualClock();
    private final ViewHealth health = new ViewHealth(clock);

    @Test
    void aViewIsStaleFromItsFirstDisconnectUntilItIsFreshAgain() {
        health.markStale(true);
        clock.advance(Duration.ofSeconds(3));
        health.markStale(true); // a second disconnect does not restart the clock

        assertThat(health.status().stale()).isTrue();
        assertThat(health.status().staleFor()).isEqualTo(Duration.ofSeconds(3));
        assertThat(health.epoch()).isEqualTo(2);

        health.markFresh();

        assertThat(health.status()).extracting(ViewStatus::stale, ViewStatus::staleFor)
                .containsExactly(false, Duration.ZERO);
        assertThat(health.epoch()).as("disconnects are never forgotten").isEqualTo(2);
    }

    @Test
    void itTellsHowLongAgoItLastHeardFromRedis() {
        assertThat(health.nanosSinceLastSync()).isEqualTo(-1);
        assertThat(health.status().lastSyncAt()).isNull();

        health.heard();
        clock.advance(Duration.ofNanos(500));

        assertThat(health.nanosSinceLastSync()).isEqualTo(500);
        assertThat(health.status().lastSyncAt()).isNotNull();
    }

    @Test
    void twoViewsReadTogetherAreAsStaleAsTheStalerAndRestoredIfEitherIs() {
        ViewStatus fresh = new ViewStatus(false, Duration.ZERO, null, true);
        ViewStatus stale = new ViewStatus(true, Duration.ofSeconds(2), null, false);

        ViewStatus both = new ViewStatus(true, Duration.ofSeconds(2), null, true);

        assertThat(ViewHealth.combined(fresh, stale)).isEqualTo(both);
        assertThat(ViewHealth.combined(stale, fresh)).isEqualTo(both);
    }

    @Test
    void aDisconnectThatDoesNotMakeEveryTopicResyncMarksStaleWithoutCountingOne() {
        health.markStale(false);

        assertThat(health.status().stale()).isTrue();
        assertThat(health.epoch()).isZero();
    }
}
