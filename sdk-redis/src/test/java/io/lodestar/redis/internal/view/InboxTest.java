package io.lodestar.redis.internal.view;

import io.lodestar.redis.internal.time.Backoff;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The I/O thread's hand-over to a view thread that runs only when the test says so; at most 5 wait, 3 per drain. */
class InboxTest {
    private static final ViewLimits LIMITS = new ViewLimits(5, 100, 100, 3, 1_000, 2, 2, 3, 4,
            Duration.ofMillis(500), Duration.ofMillis(50), new Backoff(100, 30_000));
    private final Deque<Runnable> viewThread = new ArrayDeque<>();
    private final Inbox inbox = new Inbox(viewThread::add, LIMITS);
    private final Topic orders = new Topic();
    private final Inbox.Mailbox<Integer> ordersBox = inbox.mailbox(orders);

    @Test
    void eventsThatWaitTogetherReachTheViewThreadTogetherInOrderWithOneTaskQueued() {
        ordersBox.offer(1);
        ordersBox.offer(2);

        assertThat(viewThread).as("one drain queued").hasSize(1);
        runViewThread();

        assertThat(orders.batches).containsExactly(List.of(1, 2));
        assertThat(inbox.waiting()).isZero();
    }

    @Test
    void aDrainTakesAtMostTheBoundAndQueuesAnotherForTheRest() {
        for (int i = 1; i <= 4; i++) {
            ordersBox.offer(i);
        }

        runViewThread();

        assertThat(orders.batches).containsExactly(List.of(1, 2, 3), List.of(4));
    }

    @Test
    void pastTheViewsBoundEventsAreDroppedAndTheTopicIsToldOnceToReRead() {
        Topic other = new Topic();
        Inbox.Mailbox<Integer> otherBox = inbox.mailbox(other);
        for (int i = 1; i <= 4; i++) {
            assertThat(ordersBox.offer(i)).isTrue();
        }
        assertThat(otherBox.offer(1)).as("the fifth of the view").isTrue();

        assertThat(ordersBox.offer(5)).isFalse();
        assertThat(ordersBox.offer(6)).isFalse();
        runViewThread();

        assertThat(orders.overflows).as("told once").isEqualTo(1);
        assertThat(other.overflows).isZero();
        assertThat(orders.batches).containsExactly(List.of(1, 2, 3), List.of(4));
        assertThat(ordersBox.offer(7)).as("room again once drained").isTrue();
    }

    @Test
    void aTopicToldOfAnOverflowIsToldAgainAtTheNextOne() {
        for (int i = 1; i <= 6; i++) {
            ordersBox.offer(i);
        }
        runViewThread();
        for (int i = 1; i <= 6; i++) {
            ordersBox.offer(i);
        }
        runViewThread();

        assertThat(orders.overflows).isEqualTo(2);
    }

    private void runViewThread() {
        Runnable task;
        while ((task = viewThread.poll()) != null) {
            task.run();
        }
    }

    private static final class Topic implements Inbox.Receiver<Integer> {
        final List<List<Integer>> batches = new ArrayList<>();
        int overflows;

        @Override
        public void onMessages(List<Integer> messages) {
            batches.add(List.copyOf(messages));
        }

        @Override
        public void onInboxOverflow() {
            overflows++;
        }
    }
}
