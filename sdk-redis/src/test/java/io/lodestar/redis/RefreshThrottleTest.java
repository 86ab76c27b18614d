package io.lodestar.redis;

import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class RefreshThrottleTest {
    private final ManualClock clock = new ManualClock();
    private final RefreshThrottle throttle = new RefreshThrottle(clock, Duration.ofMillis(250));

    @Test
    void theFirstAskPassesAtOnce() {
        assertThat(throttle.tryAcquire()).isTrue();
    }

    @Test
    void aBurstOfAsksWithinTheIntervalCostsOneRefresh() {
        // given a refresh that just went
        throttle.tryAcquire();

        // when more failures ask within the interval, then none passes
        for (int i = 0; i < 100; i++) {
            clock.advance(Duration.ofMillis(2));
            assertThat(throttle.tryAcquire()).as("ask at %d ms", 2 * (i + 1)).isFalse();
        }
    }

    @Test
    void anAskPassesAgainOnceTheIntervalIsOver() {
        throttle.tryAcquire();
        clock.advance(Duration.ofMillis(249));
        assertThat(throttle.tryAcquire()).isFalse();

        clock.advance(Duration.ofMillis(1));

        assertThat(throttle.tryAcquire()).isTrue();
        assertThat(throttle.tryAcquire()).isFalse();
    }
}
