package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.redis.SyncedView.Versioned;
import io.lodestar.redis.ViewSource.Batch;
import io.lodestar.redis.ViewSource.Message;
import io.lodestar.redis.internal.view.ChannelRouter;
import io.lodestar.redis.internal.view.EventOrder;
import io.lodestar.redis.internal.view.ViewLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

/**
 * The event path of a {@link SyncedView}: a PubSub event of a topic, handed over by the I/O thread, checked as
 * {@link EventOrder} decides and applied in batches on the view thread; what cannot be applied is buffered while the
 * topic loads, dropped, or handed back to the view's sync state machine ({@link SyncedView#sync}). View thread only,
 * except {@link #offer}.
 *
 * @param <V> the value of one topic (immutable)
 * @param <E> the event listeners get
 */
final class ViewEvents<V, E> {
    /** The view's logger: one name to configure for everything a view logs. */
    private static final Logger log = LoggerFactory.getLogger(SyncedView.class);

    private final SyncedView<V, E> view;
    private final String name;
    private final ViewSource<V, E> source;
    private final TopicTable<ViewTopic<V, E>, V> topics;
    private final ViewHealth health;
    private final EventOrder order;
    private final ViewLimits limits;

    ViewEvents(SyncedView<V, E> view, ViewSource<V, E> source, TopicTable<ViewTopic<V, E>, V> topics,
               ViewHealth health, EventOrder order, ViewLimits limits) {
        this.view = view;
        this.name = view.name();
        this.source = source;
        this.topics = topics;
        this.health = health;
        this.order = order;
        this.limits = limits;
    }

    /**
     * Hands a PubSub event of a topic over to the view thread (Redis' I/O thread, through the {@link ChannelRouter}):
     * an event without a positive revision is rejected here; one past the view's inbox bound is dropped, and the
     * topic re-reads instead.
     */
    void offer(ViewTopic<V, E> topic, Map<String, Object> fields) {
        Object rev = fields.get("rev");
        if (!(rev instanceof Integer || rev instanceof Long) || ((Number) rev).longValue() < 1) {
            reject(topic.id, fields, "its revision is not a positive 64-bit integer");
            return;
        }
        if (!topic.mailbox.offer(new Message(((Number) rev).longValue(), fields))) {
            view.overflows.increment();
        }
    }

    /**
     * Drops an event no writer of Lodestar can have published (anyone allowed to publish on the channel can forge
     * one): counted in {@link SyncedView#rejected}, logged at WARN (the first, then every 1000th, so a flood cannot
     * flood the log), never buffered, never a reason to resync.
     */
    void reject(String id, Map<String, Object> fields, String why) {
        view.rejected.increment();
        long count = view.rejected.sum();
        if (count == 1 || count % 1000 == 0) {
            log.warn("{} {}: dropped an event because {} ({} dropped so far; forged, or written by another"
                    + " program?): {}", name, Validation.show(id), why, count, Validation.show(fields));
        }
    }

    /**
     * Handles the events of a topic that arrived together, in order: each run of events that follow one another
     * from the held revision is applied as one batch ({@link #applyAll}); every other event is dealt with on its
     * own ({@link #isNextToApply}), after the events before it.
     */
    void onMessages(ViewTopic<V, E> topic, List<Message> messages) {
        if (view.isClosed() || !topics.isLive(topic)) {
            return;
        }
        health.heard();
        int at = 0;
        while (at < messages.size()) {
            if (!isNextToApply(topic, messages.get(at))) {
                at++;
                continue;
            }
            int end = at + 1;
            String incarnation = EventOrder.incarnationAfter(topic.current.incarnation(), messages.get(at));
            while (end < messages.size() && EventOrder.follows(messages.get(end - 1), messages.get(end), incarnation)) {
                incarnation = EventOrder.incarnationAfter(incarnation, messages.get(end));
                end++;
            }
            int applied = applyAll(topic, messages.subList(at, end));
            // past one that could not be applied (the topic now resyncs): the rest are buffered for after it
            at += applied == end - at ? applied : applied + 1;
        }
    }

    /**
     * Whether an event is the next one to apply to the held value (view thread). One that is not is dealt with
     * here, as {@link EventOrder} decides: buffered while the topic loads, dropped as a duplicate or as impossible,
     * or the reason to resync.
     */
    private boolean isNextToApply(ViewTopic<V, E> topic, Message message) {
        Versioned<V> current = topic.current;
        switch (order.decide(current, topic.syncing, message)) {
            case APPLY -> {
                return true;
            }
            case BUFFER -> buffer(topic, message);
            case DUPLICATE, UNHELD -> { }
            case HELD_REVISION -> {
                if (!describes(current, message)) {
                    reject(topic.id, message.fields(), "it says another state than the one held at its revision:"
                            + " resyncing");
                    resyncWhole(topic);
                }
            }
            case GAP -> {
                view.gaps.increment();
                log.debug("{} '{}': revision gap ({} after {}), resyncing", name, topic.id, message.revision(),
                        current.revision());
                buffer(topic, message);
                view.sync(topic);
            }
            case OTHER_INCARNATION -> {
                view.incarnations.increment();
                // Normal after Redis restarted without its data or failed over to an empty replica: INFO, not WARN.
                log.info("{} {}: revision {} is of new keys (incarnation {}; the held revision {} is of incarnation"
                        + " {}): Redis lost or replaced them (a restart without data, a failover to an empty"
                        + " replica); re-reading", name, Validation.show(topic.id), message.revision(),
                        Validation.show(message.incarnation()), current.revision(), current.incarnation());
                resyncWhole(topic);
            }
            case PURGED -> resyncWhole(topic);
            case PURGED_WHILE_LOADING -> topic.syncAgain = true;
            case TOO_FAR -> reject(topic.id, message.fields(), "its revision " + message.revision()
                    + " is impossibly far past the held " + current.revision());
        }
        return false;
    }

    /** Resyncs a topic whose held value no event can lead on from: it loads whole (no replay from it). */
    private void resyncWhole(ViewTopic<V, E> topic) {
        topic.untrusted = true;
        view.sync(topic);
    }

    /**
     * Keeps an event that arrived during a load, at most {@link ViewLimits#maxBuffer} per topic: past that the
     * buffer is dropped and the topic is loaded again once this load ends (the new load covers what was dropped).
     */
    private void buffer(ViewTopic<V, E> topic, Message message) {
        if (topic.buffer.size() >= limits.maxBuffer()) {
            view.overflows.increment();
            topic.buffer.clear();
            topic.heardBeforeLoad = 0;
            topic.syncAgain = true;
            return;
        }
        topic.buffer.add(message);
    }

    /** A malformed event describes nothing: it is dropped by {@link #applyAll} instead. */
    private boolean describes(Versioned<V> held, Message message) {
        try {
            return source.describes(held, message);
        } catch (RuntimeException malformed) {
            return true;
        }
    }

    /**
     * Applies the next events (each one revision past the one before, the first one past the held revision) as one
     * batch: one new value for them all, one swap, and every listener event in order. Returns how many were
     * applied: fewer than given when one could not be applied, and the topic now resyncs instead (the events
     * before it stay applied).
     */
    int applyAll(ViewTopic<V, E> topic, List<Message> messages) {
        Versioned<V> held = topic.current;
        Batch<V, E> batch = source.batch(topic.id, held);
        String incarnation = held.incarnation();
        int applied = 0;
        RuntimeException malformed = null;
        for (Message message : messages) {
            try {
                batch.apply(message);
            } catch (RuntimeException e) {
                malformed = e;
                break;
            }
            incarnation = EventOrder.incarnationAfter(incarnation, message);
            applied++;
        }
        if (applied > 0) {
            Message last = messages.get(applied - 1);
            topic.hold(new Versioned<>(last.revision(), batch.value(), last.digest(), incarnation));
            view.swaps.increment();
            view.eventsApplied.add(applied);
            dispatch(topic, batch.events());
            view.applied(topic, messages.subList(0, applied));
            topic.releaseWaiters();
        }
        if (malformed != null) {
            // Forged, or a newer client's event this version cannot apply: the held value stays, and a re-read
            // tells which (a real change at this revision is then in the state; a forged one leaves no trace).
            reject(topic.id, messages.get(applied).fields(), "it is malformed (" + malformed.getMessage() + ")");
            view.sync(topic);
        }
        return applied;
    }

    /** Hands events to the started listeners, all of them or (a listener that lags) none, with the state after. */
    void dispatch(ViewTopic<V, E> topic, List<E> events) {
        if (!events.isEmpty()) {
            for (ViewListener<V, E> listener : topic.listeners) {
                if (listener.started()) {
                    listener.deliver(events, topic.current);
                }
            }
        }
    }

    void dispatch(ViewTopic<V, E> topic, E event) {
        if (event != null) {
            dispatch(topic, List.of(event));
        }
    }
}
