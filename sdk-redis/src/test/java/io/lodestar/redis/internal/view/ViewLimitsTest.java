package io.lodestar.redis.internal.view;

import io.lodestar.redis.internal.time.Backoff;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ViewLimitsTest {

    @Test
    void theDefaultsAreTheBoundsTheEngineRunsWith() {
        ViewLimits limits = ViewLimits.defaults(256);

        assertThat(limits.maxConcurrentResyncs()).isEqualTo(64);
        assertThat(limits.maxConcurrentBatches()).isEqualTo(32);
        assertThat(limits.maxTopicsInFlight()).isEqualTo(2_048);
        assertThat(limits.maxBatch()).as("a batch fits a listener's queue").isLessThan(limits.maxListenerQueue());
        assertThat(limits.retry()).isEqualTo(new Backoff(100, 30_000));
    }

    @Test
    void aBoundBelowOneIsRejectedNamingIt() {
        assertThatThrownBy(() -> new ViewLimits(100, 100, 100, 0, 1_000, 2, 2, 3, 4, Duration.ZERO, Duration.ZERO,
                new Backoff(100, 30_000))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBatch must be at least 1, but was 0");
    }
}
