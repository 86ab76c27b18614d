package io.lodestar.redis.internal.view;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hand-over of one view's events from Redis' I/O thread to the view thread: a {@link Mailbox} per topic, drained
 * on the view thread in runs of at most {@link ViewLimits#maxBatch} events (what arrived while the view thread was
 * busy is applied together), and at most {@link ViewLimits#maxInbox} events waiting across the view: past that, the
 * I/O thread drops a topic's events and the topic is told once, on the view thread, to re-read instead.
 */
public final class Inbox {
    private final Executor viewThread;
    private final int capacity;
    private final int maxDrain;
    private final AtomicInteger waiting = new AtomicInteger();

    public Inbox(Executor viewThread, ViewLimits limits) {
        this.viewThread = viewThread;
        this.capacity = limits.maxInbox();
        this.maxDrain = limits.maxBatch();
    }

    /** What a topic does with what its mailbox hands over (view thread). */
    public interface Receiver<M> {
        /** Events that waited together, in the order they arrived (at least one). */
        void onMessages(List<M> messages);

        /** Events were dropped because the view's inbox was full: the topic must re-read. */
        void onInboxOverflow();
    }

    /** A topic's mailbox, handing to {@code receiver}. */
    public <M> Mailbox<M> mailbox(Receiver<M> receiver) {
        return new Mailbox<>(receiver);
    }

    /** Events waiting across the view's mailboxes. */
    public int waiting() {
        return waiting.get();
    }

    /** One topic's events on their way to the view thread. Thread-safe. */
    public final class Mailbox<M> {
        private final Receiver<M> receiver;
        private final Queue<M> queue = new ConcurrentLinkedQueue<>();
        /** A drain is queued on, or running on, the view thread. */
        private final AtomicBoolean draining = new AtomicBoolean();
        /** Events were dropped and the receiver is yet to be told. */
        private final AtomicBoolean overflowed = new AtomicBoolean();

        private Mailbox(Receiver<M> receiver) {
            this.receiver = receiver;
        }

        /**
         * Hands an event over (any thread, usually the I/O thread). False when the view's inbox is full: the event
         * is dropped, and the receiver is told once until it ran ({@link Receiver#onInboxOverflow}).
         */
        public boolean offer(M message) {
            if (waiting.incrementAndGet() > capacity) {
                waiting.decrementAndGet();
                if (overflowed.compareAndSet(false, true)) {
                    viewThread.execute(() -> {
                        overflowed.set(false);
                        receiver.onInboxOverflow();
                    });
                }
                return false;
            }
            queue.add(message);
            if (draining.compareAndSet(false, true)) {
                viewThread.execute(this::drain);
            }
            return true;
        }

        /**
         * Hands what waits to the receiver (view thread), at most the bound at once. Another drain is queued behind
         * the other work of the view thread when more wait, or as soon as an event arrives after this one looked.
         */
        private void drain() {
            List<M> messages = new ArrayList<>();
            M message;
            while (messages.size() < maxDrain && (message = queue.poll()) != null) {
                messages.add(message);
            }
            waiting.addAndGet(-messages.size());
            if (!messages.isEmpty()) {
                receiver.onMessages(messages);
            }
            draining.set(false);
            if (!queue.isEmpty() && draining.compareAndSet(false, true)) {
                viewThread.execute(this::drain);
            }
        }
    }
}
