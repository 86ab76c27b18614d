package io.lodestar.redis;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One listener on its own: a fake topic whose value the test sets, and a listener executor that runs only when the
 * test says so. A value is a number; an event is "n" for the step to value n, "resynced@n" for a catch-up.
 */
class ViewListenerTest {
    private final FakeTopic topic = new FakeTopic();
    private final Deque<Runnable> pool = new ArrayDeque<>();
    private final List<String> heard = new ArrayList<>();
    private final List<Long> startedAt = new ArrayList<>();
    private final ViewListener<Long, String> listener = new ViewListener<>(topic, heard::add,
            start -> startedAt.add(start.value()), pool::add, SyncedView.LIMITS.maxListenerQueue());

    @Test
    void aListenerHearsNothingBeforeItStartsThenItsStartValueThenEveryEventInOrder() {
        assertThat(listener.started()).isFalse();

        listener.start(versioned(3));
        listener.deliver(List.of("4"), versioned(4));
        listener.deliver(List.of("5", "6"), versioned(6)); // a batch: two events, one new value
        runPool();

        assertThat(listener.started()).isTrue();
        assertThat(startedAt).containsExactly(3L);
        assertThat(heard).containsExactly("4", "5", "6");
    }

    @Test
    void aListenerThatFallsBehindGetsOneEventToTheCurrentValueOnceItCatchesUp() {
        listener.start(versioned(0));
        runPool();
        for (long v = 1; v <= SyncedView.LIMITS.maxListenerQueue() + 5; v++) {
            listener.deliver(List.of(Long.toString(v)), versioned(v));
        }
        topic.value = versioned(SyncedView.LIMITS.maxListenerQueue() + 5);

        runPool();

        assertThat(topic.overflows).isEqualTo(1);
        assertThat(heard).hasSize(SyncedView.LIMITS.maxListenerQueue() + 1);
        assertThat(heard).last().isEqualTo("resynced@" + (SyncedView.LIMITS.maxListenerQueue() + 5));
    }

    @Test
    void aBatchThatDoesNotFitTheQueueIsNotDeliveredInPartButCaughtUpFromTheStateBeforeIt() {
        listener.start(versioned(0));
        runPool();
        long queued = SyncedView.LIMITS.maxListenerQueue() - 2;
        for (long v = 1; v <= queued; v++) {
            listener.deliver(List.of(Long.toString(v)), versioned(v));
        }

        // five events that led to one value: the queue has room for two of them only
        List<String> batch = List.of("b1", "b2", "b3", "b4", "b5");
        listener.deliver(batch, versioned(queued + 5));
        topic.value = versioned(queued + 5);
        runPool();

        assertThat(topic.overflows).isEqualTo(1);
        assertThat(heard).hasSize((int) queued + 1).doesNotContainAnyElementsOf(batch);
        assertThat(heard).last().isEqualTo("resynced@" + (queued + 5));
    }

    @Test
    void aDetachedListenerDoesNotCatchUp() {
        listener.start(versioned(0));
        runPool();
        for (long v = 1; v <= SyncedView.LIMITS.maxListenerQueue() + 1; v++) {
            listener.deliver(List.of(Long.toString(v)), versioned(v));
        }
        topic.attached = false; // its subscription was closed meanwhile

        runPool();

        assertThat(heard).hasSize(SyncedView.LIMITS.maxListenerQueue())
                .doesNotContain("resynced@" + topic.value.revision());
    }

    private void runPool() {
        Runnable task;
        while ((task = pool.poll()) != null) {
            task.run();
        }
    }

    private static SyncedView.Versioned<Long> versioned(long value) {
        return new SyncedView.Versioned<>(value, value);
    }

    private static final class FakeTopic implements ViewListener.Topic<Long, String> {
        SyncedView.Versioned<Long> value = versioned(0);
        boolean attached = true;
        int overflows;

        @Override
        public void onViewThread(Runnable task) {
            task.run();
        }

        @Override
        public boolean follows(ViewListener<Long, String> listener) {
            return attached;
        }

        @Override
        public SyncedView.Versioned<Long> current() {
            return value;
        }

        @Override
        public String resynced(SyncedView.Versioned<Long> before, SyncedView.Versioned<Long> after) {
            return before.value().equals(after.value()) ? null : "resynced@" + after.revision();
        }

        @Override
        public void overflowed() {
            overflows++;
        }

        @Override
        public String describe() {
            return "test 'topic'";
        }
    }
}
