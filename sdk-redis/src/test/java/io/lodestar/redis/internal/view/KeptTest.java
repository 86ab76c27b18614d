package io.lodestar.redis.internal.view;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** What a topic keeps after Redis lost its data, and until when: times are plain nanoseconds here. */
class KeptTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    @Test
    void eachItemIsDueWhenItsOwnGraceIsUp() {
        Kept kept = new Kept();
        kept.keep(Map.of("short", Duration.ofSeconds(2), "long", Duration.ofSeconds(5)), 0);

        assertThat(kept.nanosToNextDue(0)).isEqualTo(2 * SECOND);
        assertThat(kept.due(2 * SECOND - 1)).isEmpty();
        assertThat(kept.due(2 * SECOND)).containsExactly("short");
        assertThat(kept.nanosToNextDue(2 * SECOND)).isEqualTo(3 * SECOND);
        assertThat(kept.due(5 * SECOND)).containsExactly("long");
        assertThat(kept.isEmpty()).isTrue();
    }

    @Test
    void anItemLostAgainKeepsItsFirstDeadline() {
        Kept kept = new Kept();
        kept.keep(Map.of("a", Duration.ofSeconds(5)), 0);

        kept.keep(Map.of("a", Duration.ofSeconds(5), "b", Duration.ofSeconds(5)), 3 * SECOND);

        assertThat(kept.due(5 * SECOND)).containsExactly("a");
        assertThat(kept.items()).containsExactly("b");
    }

    @Test
    void anItemWrittenAgainOrHeldByRedisAgainIsNoLongerKept() {
        Kept kept = new Kept();
        kept.keep(Map.of("a", Duration.ofSeconds(5), "b", Duration.ofSeconds(5), "c", Duration.ofSeconds(5)), 0);

        kept.resolved("a");
        kept.retainOnly(Set.of("c"));

        assertThat(kept.items()).containsExactly("c");
        kept.resolved(null); // an event of no item
        assertThat(kept.size()).isEqualTo(1);
    }

    @Test
    void anItemKeptUntilWrittenAgainIsNeverDue() {
        Kept kept = new Kept();
        kept.keep(Collections.singletonMap("config", null), 0);

        assertThat(kept.nanosToNextDue(0)).isEqualTo(-1);
        assertThat(kept.due(Long.MAX_VALUE - 1)).isEmpty();
        assertThat(kept.items()).containsExactly("config");
    }
}
