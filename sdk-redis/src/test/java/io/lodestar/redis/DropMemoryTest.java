package io.lodestar.redis;

import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DropMemoryTest {
    private final ManualClock clock = new ManualClock();
    private final DropMemory drops = new DropMemory(clock, Duration.ofSeconds(5));

    @Test
    void aTopologyNamingTheNodeThatJustDroppedTheChannelIsTakenForAnOldOne() {
        drops.dropped("ch", "old-master");
        clock.advance(Duration.ofMillis(4_999));

        assertThat(drops.forbids(drops.of("ch"), "old-master")).isTrue();
    }

    @Test
    void anotherOwnerIsNeverForbidden() {
        drops.dropped("ch", "old-master");

        assertThat(drops.forbids(drops.of("ch"), "new-master")).isFalse();
    }

    @Test
    void afterTheMemoryTheDroppingNodeIsTheOwnerAgain() {
        // given a node that dropped the channel and, 5 s later, still owns its slot (a failover back)
        drops.dropped("ch", "old-master");

        clock.advance(Duration.ofSeconds(5));

        assertThat(drops.forbids(drops.of("ch"), "old-master")).isFalse();
    }

    @Test
    void aChannelNeverDroppedIsNotForbidden() {
        assertThat(drops.forbids(drops.of("ch"), "any")).isFalse();
    }

    @Test
    void resolvingAnOlderDropKeepsOneThatCameMeanwhile() {
        // given a subscribe that started after a drop, and another drop while it ran
        drops.dropped("ch", "a");
        DropMemory.Drop seen = drops.of("ch");
        clock.advance(Duration.ofMillis(10));
        drops.dropped("ch", "b");

        // when the subscribe succeeds
        drops.resolved("ch", seen);

        // then the newer drop still counts
        assertThat(drops.forbids(drops.of("ch"), "b")).isTrue();
    }

    @Test
    void resolvingTheLastDropForgetsIt() {
        drops.dropped("ch", "a");

        drops.resolved("ch", drops.of("ch"));

        assertThat(drops.of("ch")).isNull();
    }
}
