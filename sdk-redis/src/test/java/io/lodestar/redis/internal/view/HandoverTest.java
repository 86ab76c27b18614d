package io.lodestar.redis.internal.view;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Tasks handed to a view thread that runs only when the test says so. */
class HandoverTest {
    private final Deque<Runnable> viewThread = new ArrayDeque<>();
    private final List<RuntimeException> failures = new ArrayList<>();
    private final Handover handover = new Handover(viewThread::add, failures::add);
    private final List<String> ran = new ArrayList<>();

    @Test
    void tasksAddedWhileARunIsQueuedJoinItInOrder() {
        handover.add(() -> ran.add("a"));
        handover.add(() -> ran.add("b"));

        assertThat(viewThread).as("one run queued for both").hasSize(1);
        runViewThread();

        assertThat(ran).containsExactly("a", "b");
    }

    @Test
    void aTaskAddedAfterARunEndedQueuesAnother() {
        handover.add(() -> ran.add("a"));
        runViewThread();

        handover.add(() -> ran.add("b"));

        assertThat(viewThread).hasSize(1);
        runViewThread();
        assertThat(ran).containsExactly("a", "b");
    }

    @Test
    void aTaskThatThrowsIsReportedAndTheRunGoesOn() {
        IllegalStateException boom = new IllegalStateException("boom");
        handover.add(() -> {
            throw boom;
        });
        handover.add(() -> ran.add("after"));

        runViewThread();

        assertThat(failures).containsExactly(boom);
        assertThat(ran).containsExactly("after");
    }

    private void runViewThread() {
        Runnable task;
        while ((task = viewThread.poll()) != null) {
            task.run();
        }
    }
}
