package io.lodestar.redis.internal.time;

import java.time.Duration;
import java.time.Instant;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A clock that moves only when a test says so: {@link #advance} runs every task that falls due, in due order (ties in
 * the order scheduled), on the calling thread. Tasks scheduled by a running task run in the same advance if they fall
 * due within it.
 */
public final class ManualClock implements Clock {

    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private final Instant epoch;
    private long nanos;
    private long sequence;
    private boolean shutDown;

    public ManualClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public ManualClock(Instant start) {
        this.epoch = start;
    }

    @Override
    public synchronized long nanoTime() {
        return nanos;
    }

    @Override
    public synchronized Instant instant() {
        return epoch.plusNanos(nanos);
    }

    @Override
    public synchronized Scheduled schedule(Runnable task, long delay, TimeUnit unit) {
        if (shutDown) {
            throw new RejectedExecutionException("the manual clock is shut down");
        }
        Task scheduled = new Task(nanos + Math.max(0, unit.toNanos(delay)), sequence++, task);
        tasks.add(scheduled);
        return () -> {
            synchronized (this) {
                return tasks.remove(scheduled);
            }
        };
    }

    /** Moves time forward by {@code step}, running what falls due on the way; returns how many tasks ran. */
    public int advance(Duration step) {
        long target;
        synchronized (this) {
            target = nanos + step.toNanos();
        }
        int ran = 0;
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.dueNanos > target) {
                    nanos = target;
                    return ran;
                }
                tasks.poll();
                nanos = Math.max(nanos, next.dueNanos);
            }
            next.task.run();
            ran++;
        }
    }

    /** Runs what is due now without moving time. */
    public int runDue() {
        return advance(Duration.ZERO);
    }

    /** How many tasks wait. */
    public synchronized int pending() {
        return tasks.size();
    }

    /** From now on {@link #schedule} rejects, as a shut-down scheduler does. */
    public synchronized void shutDown() {
        shutDown = true;
    }

    private record Task(long dueNanos, long sequence, Runnable task) implements Comparable<Task> {
        @Override
        public int compareTo(Task other) {
            int byDue = Long.compare(dueNanos, other.dueNanos);
            return byDue != 0 ? byDue : Long.compare(sequence, other.sequence);
        }
    }
}
