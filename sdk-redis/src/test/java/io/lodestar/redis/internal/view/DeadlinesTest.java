package io.lodestar.redis.internal.view;

import io.lodestar.redis.internal.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Deadlines of pending calls on a manual clock: they fall due when the test moves it, never by waiting. */
class DeadlinesTest {
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    private final ManualClock clock = new ManualClock();
    private final Deadlines deadlines = new Deadlines(clock);
    private final CompletableFuture<String> call = new CompletableFuture<>();

    @Test
    void aCallThatDoesNotEndInTimeEndsAtItsDeadline() {
        bound();

        clock.advance(DEADLINE.minusMillis(1));
        assertThat(call).isNotDone();
        clock.advance(Duration.ofMillis(1));

        assertThat(call).isCompletedWithValue("deadline");
        assertThat(deadlines.pending()).isZero();
    }

    @Test
    void aCallThatEndsInTimeCancelsItsTimer() {
        bound();

        call.complete("done");

        assertThat(clock.pending()).as("timers left on the clock").isZero();
        assertThat(deadlines.pending()).isZero();
    }

    @Test
    void closingEndsEveryPendingCallAsClosed() {
        bound();

        deadlines.close();

        assertThat(call).isCompletedWithValue("closed");
    }

    @Test
    void aCallBoundAfterCloseEndsAtOnceAsClosed() {
        deadlines.close();

        bound();

        assertThat(call).isCompletedWithValue("closed");
        assertThat(clock.pending()).isZero();
    }

    @Test
    void aCallTheClockCannotTimeEndsAtOnceAsClosedRatherThanHang() {
        clock.shutDown(); // the client's scheduler is shut down

        bound();

        assertThat(call).isCompletedWithValue("closed");
        assertThat(deadlines.pending()).isZero();
    }

    private void bound() {
        deadlines.bound(call, DEADLINE, () -> call.complete("deadline"), () -> call.complete("closed"));
    }
}
