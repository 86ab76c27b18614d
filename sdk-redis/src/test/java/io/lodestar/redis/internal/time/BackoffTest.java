package io.lodestar.redis.internal.time;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {

    private final Backoff backoff = new Backoff(100, 5_000);

    @Test
    void boundDoublesPerAttemptUpToTheMaximum() {
        assertThat(backoff.boundMillis(0)).isEqualTo(100);
        assertThat(backoff.boundMillis(1)).isEqualTo(200);
        assertThat(backoff.boundMillis(5)).isEqualTo(3_200);
        assertThat(backoff.boundMillis(6)).isEqualTo(5_000);
        assertThat(backoff.boundMillis(Integer.MAX_VALUE)).isEqualTo(5_000);
    }

    @Test
    void delayStaysBetweenHalfTheBoundAndTheBound() {
        SplittableRandom random = new SplittableRandom(42);
        for (int attempt = 0; attempt < 12; attempt++) {
            long bound = backoff.boundMillis(attempt);
            for (int i = 0; i < 1_000; i++) {
                assertThat(backoff.delayMillis(attempt, random)).isBetween(bound / 2, bound);
            }
        }
    }

    @Test
    void delayIsSpreadSoACrowdDoesNotComeBackTogether() {
        SplittableRandom random = new SplittableRandom(7);
        long distinct = LongStream.range(0, 200)
                .map(i -> backoff.delayMillis(6, random)).distinct().count();
        assertThat(distinct).isGreaterThan(100);
    }

    @Test
    void badBoundsAreRejectedNamingBoth() {
        assertThatThrownBy(() -> new Backoff(0, 10)).hasMessageContaining("base 0 ms, max 10 ms");
        assertThatThrownBy(() -> new Backoff(100, 10)).hasMessageContaining("1 <= base <= max");
    }
}
