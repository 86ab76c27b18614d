package io.lodestar.redis;

import io.lodestar.redis.SyncedView.Versioned;
import io.lodestar.redis.internal.view.Admission;
import io.lodestar.redis.internal.view.EventOrder;
import io.lodestar.redis.internal.view.Kept;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * What a topic of a {@link SyncedView} is: where its events come from, how to read them, how to load the topic and
 * how an event changes it. One per kind of topic: {@link ServiceSource}, {@link IndexSource}, {@link ConfigSource}.
 *
 * @param <V> the value of one topic (immutable)
 * @param <E> the event listeners get
 */
interface ViewSource<V, E> {
    String channel(String id);

    /**
     * Reads the JSON text of an event heard on a channel of this source (on Lettuce's I/O thread) into the
     * fields of a {@link Message}. By default Jackson-jr's map of it.
     *
     * @throws RuntimeException when the text is not a JSON object (the event is then dropped unread)
     */
    default Map<String, Object> read(String json) {
        return Json.read(json);
    }

    CompletionStage<Versioned<V>> load(String id);

    /**
     * Which topics this source can load together ({@link #loadAll}): topics of one group are subscribed and
     * loaded in batches (preload, resyncs), bounded (see {@link Admission}); null for
     * every id (the default) means one topic at a time. A source that groups must not need {@link #reload}: a
     * batch loads (a resync then tells listeners by {@link #resynced}).
     */
    default Object group(String id) {
        return null;
    }

    /**
     * Loads topics of one {@link #group}, already subscribed, each as {@link #load} would: one stage per id, in
     * order, each completing on its own. {@code known} has, for each id, the value the view holds and trusts
     * (null: none): a source may complete with that very value, without reading it again, when Redis still holds
     * exactly its state (revision, digest and incarnation: the digest is the last write's own, so an equal one is
     * the same state). A resync after a reconnect finds most topics unchanged. By default one {@link #load}
     * each.
     */
    default List<? extends CompletionStage<Versioned<V>>> loadAll(List<String> ids, List<Versioned<V>> known) {
        return ids.stream().map(this::load).toList();
    }

    /**
     * The revision, with the digest and the incarnation when the source keeps them (see common.lua), read
     * together: what the reconcile compares with the held value.
     */
    CompletionStage<Versioned<Void>> stamp(String id);

    /** What the reconcile compares with the digest of {@link #stamp}: by default the held value's digest. */
    default String digest(Versioned<V> held) {
        return held.digest();
    }

    /**
     * Whether an event of the held revision describes the held value (the real event of that revision produced
     * it). False means the view applied a forged event, or this one is forged: only a re-read can tell. By
     * default the event's digest, when it has one, must be the held value's.
     */
    default boolean describes(Versioned<V> held, Message message) {
        return message.digest() == null || message.digest().equals(held.digest());
    }

    /**
     * Starts a batch of events on the held value: the view applies the events of a topic that wait for it
     * together and publishes one new value for them all (see {@link Batch}); a single event is a batch of one.
     */
    Batch<V, E> batch(String id, Versioned<V> current);

    /** The listener event for a resync that replaced {@code before} (null when nothing changed). */
    E resynced(String id, Versioned<V> before, Versioned<V> after);

    /**
     * A locally kept value to serve when a topic's first load fails because Redis cannot be reached (the snapshot
     * directory, see {@link Snapshots}), or null for none. The view keeps retrying and replaces it once Redis answers.
     */
    default Versioned<V> restore(String id) {
        return null;
    }

    /**
     * The view now holds this value of a topic (read from Redis, events applied, or kept after Redis lost its data;
     * never a {@link #restore}d one): what a source with a local copy saves. On the view thread: must not block.
     */
    default void held(String id, Versioned<V> value) {
    }

    /**
     * Loads a topic again (a resync) that holds {@code held}. A source that can tell what happened in between
     * (config history) returns those events, in order, ending at the loaded value, so listeners miss nothing;
     * by default it returns none, and listeners get the one {@link #resynced} event.
     */
    default CompletionStage<Reloaded<V, E>> reload(String id, Versioned<V> held) {
        return load(id).thenApply(loaded -> new Reloaded<>(loaded, null));
    }

    /**
     * Data-loss protection (see {@link Kept}): the items of {@code held} that {@code loaded}, read from keys Redis
     * wrote anew, lacks, each with the time its owner gets to write it again (null: until written again or really
     * removed). Empty (the default): the source keeps nothing, and the view holds what Redis holds.
     */
    default Map<String, Duration> lost(String id, V held, V loaded) {
        return Map.of();
    }

    /** {@code loaded} with the {@code items} of {@code from} it lacks (see {@link #lost}). */
    default V withKept(String id, V loaded, V from, Set<String> items) {
        return loaded;
    }

    /** The item an event writes or removes (see {@link #lost}), or null. */
    default String item(Message message) {
        return null;
    }

    /**
     * {@code current} without {@code items} whose time to be written again is up (see {@link #lost}), and the
     * listener events that say each left. Only asked of a source whose {@link #lost} gives items a time.
     */
    default Dropped<V, E> drop(String id, Versioned<V> current, List<String> items) {
        throw new UnsupportedOperationException("a source that keeps items for a time drops them");
    }

    /** A value without items that were dropped, and the listener events that say so. */
    record Dropped<V, E>(V value, List<E> events) {
    }

    /** A resync's result: the value, and the events that lead to it from the held value (null: unknown). */
    record Reloaded<V, E>(Versioned<V> value, List<E> events) {
    }

    record Message(long revision, Map<String, Object> fields) implements EventOrder.Event {
        /** The digest the event carries (see {@link Versioned}), or null. */
        public String digest() {
            return fields.get("digest") instanceof String digest ? digest : null;
        }

        /** Whether the event says the topic's keys were purged (purge_service.lua, purge_config.lua). */
        @Override
        public boolean purged() {
            return "purged".equals(fields.get("type"));
        }

        /** The incarnation the event carries (see {@link Versioned}), or null. */
        @Override
        public String incarnation() {
            return fields.get("inc") instanceof String incarnation ? incarnation : null;
        }
    }

    /**
     * Consecutive events of one topic (each one revision past the one before, the first one past the held value)
     * applied to a working copy of the held value, from which the new value is built once: a topic that holds
     * much pays for one copy per batch, not per event. Listeners still hear of every change, in order.
     */
    interface Batch<V, E> {
        /**
         * Applies the next event to the working copy.
         *
         * @throws RuntimeException when the event cannot be applied (malformed, forged, or of a type this version
         *                          does not know); the working copy is then as it was before it
         */
        void apply(Message message);

        /** The value after the events applied so far (at least one); called once, at the end of the batch. */
        V value();

        /**
         * The listener events of the events applied, in order (none when nothing listeners know changed); called
         * after {@link #value}. One per event, unless the source's event describes a whole state rather than a
         * step (the index's {@code ServicesChanged}): then one for the batch, from the held value to the new one.
         */
        List<E> events();
    }
}
