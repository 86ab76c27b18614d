package io.lodestar.redis.internal.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ManualClockTest {

    private final ManualClock clock = new ManualClock();
    private final List<String> ran = new ArrayList<>();

    @Test
    void tasksRunInDueOrderWhenTimeReachesThem() {
        clock.schedule(() -> ran.add("b"), 200, TimeUnit.MILLISECONDS);
        clock.schedule(() -> ran.add("a"), 100, TimeUnit.MILLISECONDS);
        clock.schedule(() -> ran.add("c"), 300, TimeUnit.MILLISECONDS);

        assertThat(clock.advance(Duration.ofMillis(250))).isEqualTo(2);
        assertThat(ran).containsExactly("a", "b");
        assertThat(clock.nanoTime()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }

    @Test
    void aTaskSeesTheTimeItWasDue() {
        List<Long> seen = new ArrayList<>();
        clock.schedule(() -> seen.add(clock.nanoTime()), 100, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofSeconds(1));
        assertThat(seen).containsExactly(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aTaskScheduledByATaskRunsInTheSameAdvanceWhenDueWithinIt() {
        clock.schedule(() -> {
            ran.add("first");
            clock.schedule(() -> ran.add("second"), 100, TimeUnit.MILLISECONDS);
        }, 100, TimeUnit.MILLISECONDS);
        clock.advance(Duration.ofMillis(200));
        assertThat(ran).containsExactly("first", "second");
    }

    @Test
    void aCancelledTaskNeverRuns() {
        Clock.Scheduled scheduled = clock.schedule(() -> ran.add("x"), 100, TimeUnit.MILLISECONDS);
        assertThat(scheduled.cancel()).isTrue();
        assertThat(scheduled.cancel()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(ran).isEmpty();
    }

    @Test
    void aShutDownClockRejectsNewTasks() {
        clock.shutDown();
        assertThatThrownBy(() -> clock.schedule(() -> { }, 1, TimeUnit.SECONDS))
                .isInstanceOf(RejectedExecutionException.class);
    }
}
