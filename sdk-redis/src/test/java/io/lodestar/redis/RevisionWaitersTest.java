package io.lodestar.redis;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Read-your-writes waiters of one topic on their own. */
class RevisionWaitersTest {
    private final RevisionWaiters waiters = new RevisionWaiters();

    @Test
    void aWaiterIsReleasedOnceItsRevisionOrANewerOneIsReached() {
        CompletableFuture<Void> three = new CompletableFuture<>();
        CompletableFuture<Void> five = new CompletableFuture<>();
        waiters.add(3, three);
        waiters.add(5, five);

        waiters.release(2);
        assertThat(three).isNotDone();

        waiters.release(4);
        assertThat(three).isCompleted();
        assertThat(five).isNotDone();
        assertThat(waiters.size()).isEqualTo(1);

        waiters.release(9);
        assertThat(five).isCompleted();
        assertThat(waiters.size()).isZero();
    }

    @Test
    void aWaiterWhoseWaitEndedOtherwiseIsForgotten() {
        CompletableFuture<Void> never = new CompletableFuture<>();
        RevisionWaiters.Waiter waiter = waiters.add(1_000, never);

        waiters.remove(waiter); // its timeout: the revision never came

        assertThat(waiters.size()).isZero();
        assertThat(never).isNotDone();
    }

    @Test
    void aReleasedWaiterMayRemoveItselfAsItCompletes() {
        // the view removes a waiter when its wait completes; on an inline view thread that is during the release
        CompletableFuture<Void> reached = new CompletableFuture<>();
        RevisionWaiters.Waiter waiter = waiters.add(2, reached);
        reached.whenComplete((ok, failure) -> waiters.remove(waiter));

        waiters.release(2);

        assertThat(reached).isCompleted();
        assertThat(waiters.size()).isZero();
    }
}
