package io.lodestar.redis;

import io.lodestar.redis.internal.time.Clock;
import io.netty.util.HashedWheelTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The leases' clock: tasks wait on the wheel and run on the executor, never on the timer's thread. */
class WheelClockTest {
    private static final Duration BOUND = Duration.ofSeconds(5);

    private final HashedWheelTimer timer = new HashedWheelTimer(10, TimeUnit.MILLISECONDS);
    private final ExecutorService executor = Executors.newSingleThreadExecutor(task -> new Thread(task, "executor"));
    private final Clock clock = new WheelClock(timer, executor);

    @AfterEach
    void stop() {
        timer.stop();
        executor.shutdownNow();
    }

    @Test
    void aDelayedTaskWaitsOnTheWheelAndRunsOnTheExecutor() {
        // given a task due in 20 ms
        CompletableFuture<String> ranOn = new CompletableFuture<>();
        clock.schedule(() -> ranOn.complete(Thread.currentThread().getName()), 20, TimeUnit.MILLISECONDS);

        // then it waits on the wheel, and runs on the executor
        assertThat(timer.pendingTimeouts()).isEqualTo(1);
        assertThat(ranOn).succeedsWithin(BOUND).isEqualTo("executor");
    }

    @Test
    void aTaskDueNowGoesToTheExecutorAtOnce() {
        // when a task is due now, then it runs on the executor without waiting on the wheel
        CompletableFuture<String> ranOn = new CompletableFuture<>();
        clock.schedule(() -> ranOn.complete(Thread.currentThread().getName()), 0, TimeUnit.MILLISECONDS);
        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(ranOn).succeedsWithin(BOUND).isEqualTo("executor");
    }

    @Test
    void cancelledTasksLeaveTheWheel() {
        // given 50 tasks due in ten minutes
        List<Clock.Scheduled> scheduled = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            scheduled.add(clock.schedule(() -> { }, 10, TimeUnit.MINUTES));
        }
        assertThat(timer.pendingTimeouts()).isEqualTo(50);

        // when they are cancelled, then they leave the wheel at its next tick
        scheduled.forEach(task -> assertThat(task.cancel()).isTrue());
        await().atMost(BOUND).until(() -> timer.pendingTimeouts() == 0);
    }

    @Test
    void aStoppedTimerRejectsAsAShutDownSchedulerDoes() {
        // given the Lettuce resources were shut down
        timer.stop();

        // then a delayed task is rejected, as the clock's contract says
        assertThatThrownBy(() -> clock.schedule(() -> { }, 1, TimeUnit.SECONDS))
                .isInstanceOf(RejectedExecutionException.class).hasMessageContaining("timer is stopped");
    }
}
