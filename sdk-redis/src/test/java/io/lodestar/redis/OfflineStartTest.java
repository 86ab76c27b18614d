package io.lodestar.redis;

import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class OfflineStartTest {
    private final ManualClock clock = new ManualClock();
    private final List<Long> attemptsAtMs = new ArrayList<>();
    private final AtomicInteger connected = new AtomicInteger();
    private final AtomicInteger stopped = new AtomicInteger();
    private int failuresLeft;

    private OfflineStart start(int failures) {
        failuresLeft = failures;
        OfflineStart start = new OfflineStart(clock, new SplittableRandom(1), () -> {
            attemptsAtMs.add(TimeUnit.NANOSECONDS.toMillis(clock.nanoTime()));
            return failuresLeft-- <= 0;
        }, connected::incrementAndGet, stopped::incrementAndGet);
        start.schedule();
        return start;
    }

    @Test
    void retriesWithGrowingJitteredBackoffUntilConnectedThenSaysSoOnce() {
        // given Redis unreachable for the first 6 attempts
        start(6);

        // when time passes
        clock.advance(Duration.ofMinutes(1));

        // then 7 attempts, each wait within the backoff's bounds, one "connected", and the attempts stop
        assertThat(attemptsAtMs).hasSize(7);
        long previous = 0;
        for (int i = 0; i < attemptsAtMs.size(); i++) {
            long waited = attemptsAtMs.get(i) - previous;
            long bound = OfflineStart.BACKOFF.boundMillis(i);
            assertThat(waited).as("wait before attempt %d", i).isBetween(bound / 2, bound);
            previous = attemptsAtMs.get(i);
        }
        assertThat(connected).hasValue(1);
        assertThat(stopped).hasValue(1);
        assertThat(clock.pending()).isZero();
    }

    @Test
    void waitsNeverExceedTheMaximumHoweverLongRedisIsAway() {
        start(1_000);

        clock.advance(Duration.ofMinutes(5));

        for (int i = 1; i < attemptsAtMs.size(); i++) {
            assertThat(attemptsAtMs.get(i) - attemptsAtMs.get(i - 1)).isLessThanOrEqualTo(500);
        }
        assertThat(attemptsAtMs.size()).isGreaterThan(600);
        assertThat(connected).hasValue(0);
    }

    @Test
    void closingStopsTheAttemptsAndNeverSaysConnected() {
        OfflineStart start = start(3);
        clock.advance(Duration.ofMillis(300));
        int attempts = attemptsAtMs.size();

        start.close();
        clock.advance(Duration.ofMinutes(1));

        assertThat(attemptsAtMs).hasSize(attempts);
        assertThat(connected).hasValue(0);
        assertThat(stopped).hasValue(1);
    }
}
