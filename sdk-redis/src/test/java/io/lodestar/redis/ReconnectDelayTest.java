package io.lodestar.redis;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The reconnect delay of the Lettuce resources a client creates for itself (docs/redis.md, "Recovery"). */
class ReconnectDelayTest {
    private final ClientResources resources = ClientSettings.defaultResources().build();

    @AfterEach
    void shutdown() {
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    @Test
    void afterALongOutageEachDelayIsDrawnBetween250And500Milliseconds() {
        Delay delay = resources.reconnectDelay();
        Set<Duration> drawn = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            drawn.add(delay.createDelay(100)); // the 100th attempt: about 40 s into an outage
        }
        assertThat(drawn).allSatisfy(each -> assertThat(each)
                .isBetween(Duration.ofMillis(250), Duration.ofMillis(500)));
        assertThat(drawn).as("distinct delays, so clients that lost Redis together do not come back together")
                .hasSizeGreaterThan(100);
    }

    @Test
    void theFirstAttemptsComeWithinMilliseconds() {
        Delay delay = resources.reconnectDelay();

        assertThat(delay.createDelay(1)).isLessThanOrEqualTo(Duration.ofMillis(1));
        assertThat(delay.createDelay(5)).isBetween(Duration.ofMillis(8), Duration.ofMillis(16));
    }
}
