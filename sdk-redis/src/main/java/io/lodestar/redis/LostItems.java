package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.redis.SyncedView.Versioned;
import io.lodestar.redis.ViewSource.Message;
import io.lodestar.redis.internal.time.Clock;
import io.lodestar.redis.internal.view.Kept;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A view's protection against Redis losing its data (view thread only): when a load finds a topic's keys written
 * anew (another incarnation, or none) and lacking items the view held from Redis, the topic keeps serving those
 * items beside what Redis holds, each until its owner had the time to write it again (see {@link Kept} for the
 * bookkeeping and {@link ViewSource#lost} for each item's time). Items written again in time were never gone for
 * listeners; the others leave one by one when their time is up. While an item waits for its owner the view is stale.
 *
 * <p>Kept apart from {@link SyncedView} so the sync state machine reads as one thing: it asks this class what a
 * load leaves the topic holding, and tells it when events wrote items or a topic went away.
 */
final class LostItems<V, E> {
    private static final Logger log = LoggerFactory.getLogger(LostItems.class);

    private final SyncedView<V, E> view;
    private final ViewSource<V, E> source;
    private final TopicTable<ViewTopic<V, E>, V> topics;
    private final ViewHealth health;
    private final Clock clock;
    /** Topics that keep items Redis lost. */
    private int keptTopics;

    LostItems(SyncedView<V, E> view, ViewSource<V, E> source, TopicTable<ViewTopic<V, E>, V> topics,
              ViewHealth health, Clock clock) {
        this.view = view;
        this.source = source;
        this.topics = topics;
        this.health = health;
        this.clock = clock;
    }

    /**
     * What a topic holds after a load: what was loaded, plus the items Redis lost that are still waiting for their
     * owners (items kept already stay until Redis holds them again or their time is up). A value restored from disk
     * is not protected: Redis answering replaces it whole.
     */
    Versioned<V> afterLoad(ViewTopic<V, E> topic, Versioned<V> before, Versioned<V> loaded) {
        if (before == null || topic.restored) {
            return loaded;
        }
        boolean lostKeys = before.incarnation() != null && !before.incarnation().equals(loaded.incarnation());
        if (topic.kept == null && !lostKeys) {
            return loaded;
        }
        Map<String, Duration> missing = source.lost(topic.id, before.value(), loaded.value());
        if (topic.kept != null) {
            topic.kept.retainOnly(missing.keySet());
        }
        if (lostKeys && !missing.isEmpty()) {
            if (topic.kept == null) {
                topic.kept = new Kept();
                startedKeeping(topic, before, loaded, missing.size());
            }
            topic.kept.keep(missing, clock.nanoTime());
            // stale while items wait for their owners; one kept until written again (a config) is not news
            if (!topic.keptStale && topic.kept.nanosToNextDue(clock.nanoTime()) >= 0) {
                topic.keptStale = true;
                health.keeping(1);
            }
        }
        if (topic.kept == null) {
            return loaded;
        }
        if (topic.kept.isEmpty()) {
            stoppedKeeping(topic);
            return loaded;
        }
        scheduleDrop(topic);
        return new Versioned<>(loaded.revision(), source.withKept(topic.id, loaded.value(), before.value(),
                topic.kept.items()), loaded.digest(), loaded.incarnation());
    }

    /** Events of a topic were applied: the items they wrote or removed are no longer kept. */
    void applied(ViewTopic<V, E> topic, List<Message> messages) {
        if (topic.kept != null) {
            messages.forEach(message -> topic.kept.resolved(source.item(message)));
            if (topic.kept.isEmpty()) {
                stoppedKeeping(topic);
            }
        }
    }

    /** The topic left the view: it keeps nothing any more. */
    void dropped(ViewTopic<V, E> topic) {
        if (topic.kept != null) {
            stoppedKeeping(topic);
        }
    }

    private void startedKeeping(ViewTopic<V, E> topic, Versioned<V> before, Versioned<V> loaded, int missing) {
        view.dataLosses.increment();
        String message = "{} {}: Redis lost its keys (incarnation {} is now {}) and lacks {} of the items the view"
                + " held; serving them still until they are written again (see docs/redis.md, \"When Redis loses its"
                + " data\"){}";
        if (keptTopics++ == 0) { // normal after a restart without data (see ViewEvents): INFO, not WARN
            log.info(message, view.name(), Validation.show(topic.id), before.incarnation(), loaded.incarnation(),
                    missing, " (other entries that find the same are logged at debug)");
        } else {
            log.debug(message, view.name(), Validation.show(topic.id), before.incarnation(), loaded.incarnation(),
                    missing, "");
        }
    }

    private void stoppedKeeping(ViewTopic<V, E> topic) {
        topic.kept = null;
        if (topic.keptTimer != null) {
            topic.keptTimer.cancel();
            topic.keptTimer = null;
        }
        if (topic.keptStale) {
            topic.keptStale = false;
            health.keeping(-1);
        }
        if (--keptTopics == 0) {
            log.info("{}: every entry holds what Redis holds again (the owners wrote back what Redis lost, or their"
                    + " time to do so is up)", view.name());
        }
    }

    /** Wakes the topic when its next kept item is due. */
    private void scheduleDrop(ViewTopic<V, E> topic) {
        if (topic.keptTimer != null) {
            topic.keptTimer.cancel();
            topic.keptTimer = null;
        }
        long delay = topic.kept.nanosToNextDue(clock.nanoTime());
        if (delay >= 0 && !view.isClosed()) {
            try {
                topic.keptTimer = clock.schedule(() -> dropDueSoon(topic), delay, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopped) {
                // closing
            }
        }
    }

    private void dropDueSoon(ViewTopic<V, E> topic) {
        try {
            view.onViewThread(() -> dropDue(topic));
        } catch (RejectedExecutionException closing) {
            // the client closes: nothing left to drop
        }
    }

    /** Drops the kept items whose time is up: the owners did not write them again, so they really left. */
    private void dropDue(ViewTopic<V, E> topic) {
        topic.keptTimer = null;
        if (view.isClosed() || topic.kept == null) {
            return;
        }
        if (!topics.isLive(topic)) {
            stoppedKeeping(topic);
            return;
        }
        List<String> due = topic.kept.due(clock.nanoTime());
        Versioned<V> held = topic.current;
        if (!due.isEmpty() && held != null) {
            ViewSource.Dropped<V, E> dropped = source.drop(topic.id, held, due);
            topic.hold(new Versioned<>(held.revision(), dropped.value(), held.digest(), held.incarnation()));
            view.events().dispatch(topic, dropped.events());
        }
        if (topic.kept.isEmpty()) {
            stoppedKeeping(topic);
        } else {
            scheduleDrop(topic);
        }
    }
}
