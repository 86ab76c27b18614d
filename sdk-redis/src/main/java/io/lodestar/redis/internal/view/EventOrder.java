package io.lodestar.redis.internal.view;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where an event of a topic stands against the value the view holds: the next one to apply, one to keep for after
 * the load under way, a duplicate, a gap, an event of other keys, or one no writer can have published. A pure
 * function of the held value's revision and incarnation, whether the topic is loading, and the event; the view acts
 * on the {@link Verdict}.
 *
 * <p>Revisions count the changes of a topic's keys; the incarnation names those keys (written again after they were
 * lost, they count from 1 again, under another incarnation): revisions of two incarnations cannot be compared. An
 * incarnation is null when unknown (an older writer's event, a source that keeps none): such a value or event is
 * compared by revision alone.
 */
public final class EventOrder {

    /** A revision of a topic's keys, and the incarnation of those keys (null: unknown). */
    public interface Stamp {
        long revision();

        String incarnation();
    }

    /** An event: the revision it made, of which keys, and whether it says the keys were purged. */
    public interface Event extends Stamp {
        boolean purged();
    }

    /** What the view does with an event. */
    public enum Verdict {
        /** The next revision of the held keys: apply it. */
        APPLY,
        /** The topic is loading: keep it, and apply it after the load if it is newer than what the load read. */
        BUFFER,
        /** Older than the held revision: it changes nothing. */
        DUPLICATE,
        /**
         * Of the held revision: a duplicate if it describes the held value (only the source can tell), else it
         * says another state than the one held (forged, or the held value came from a forged event).
         */
        HELD_REVISION,
        /** Nothing is held and nothing loads: the next load reads what it made. */
        UNHELD,
        /** Past the next revision: one was lost on the way. Keep it and re-read the topic. */
        GAP,
        /**
         * Of other keys than the held value's (they were lost and written again): neither a duplicate nor a gap;
         * only a whole re-read tells the state (a replay would mix histories).
         */
        OTHER_INCARNATION,
        /** The keys were purged: Redis holds the topic empty at revision 0, which no event leads to. Re-read. */
        PURGED,
        /** Purged while loading: the load may have read before the purge, so load once more after it. */
        PURGED_WHILE_LOADING,
        /** Impossibly far past the held revision: no writer can have published it. Drop it. */
        TOO_FAR
    }

    private final long maxRevisionStep;

    /** @param maxRevisionStep the largest step past the held revision a real event can take */
    public EventOrder(long maxRevisionStep) {
        this.maxRevisionStep = maxRevisionStep;
    }

    /**
     * Where {@code event} stands against {@code held} (null: nothing held yet) while the topic is, or is not,
     * {@code loading}.
     */
    public Verdict decide(Stamp held, boolean loading, Event event) {
        if (held != null && otherIncarnation(held, event.incarnation()) && !loading) {
            return Verdict.OTHER_INCARNATION;
        }
        if (held != null && event.revision() - held.revision() > maxRevisionStep) {
            return Verdict.TOO_FAR;
        }
        if (event.purged()) {
            return loading ? Verdict.PURGED_WHILE_LOADING : held != null ? Verdict.PURGED : Verdict.UNHELD;
        }
        if (loading) {
            return Verdict.BUFFER;
        }
        if (held == null) {
            return Verdict.UNHELD;
        }
        if (event.revision() == held.revision()) {
            return Verdict.HELD_REVISION;
        }
        if (event.revision() < held.revision()) {
            return Verdict.DUPLICATE;
        }
        return event.revision() == held.revision() + 1 ? Verdict.APPLY : Verdict.GAP;
    }

    /** Whether {@code held} counts its revision in other keys than {@code incarnation} (both known). */
    public static boolean otherIncarnation(Stamp held, String incarnation) {
        return held.incarnation() != null && incarnation != null && !held.incarnation().equals(incarnation);
    }

    /**
     * Whether {@code next} can join a batch that ends with {@code last}, whose keys are {@code incarnation}: the next
     * revision, of the same keys, and a change (not a purge). What does not is decided on its own once the batch
     * before it is applied.
     */
    public static boolean follows(Event last, Event next, String incarnation) {
        return next.revision() == last.revision() + 1 && !next.purged()
                && (incarnation == null || next.incarnation() == null || incarnation.equals(next.incarnation()));
    }

    /** The incarnation of the held value after an event: the event's, or the one held when it carries none. */
    public static String incarnationAfter(String held, Event event) {
        return event.incarnation() != null ? event.incarnation() : held;
    }

    /**
     * Sorts out the events kept while a topic loaded, once the load read {@code loaded}: the first
     * {@code heardBeforeLoad} of {@code buffer} were heard before the load started.
     *
     * <ul>
     *   <li>one of other keys than the loaded ones is dropped: heard before the load, it is of the keys the load
     *       replaced; heard after, the keys changed again since ({@link AfterLoad#keysChangedAgain});</li>
     *   <li>one heard before the load past the loaded revision was published after Redis counted its revision (the
     *       scripts count, then publish): if the load found less, Redis never had it
     *       ({@link AfterLoad#impossible}; keeping it would resync for ever);</li>
     *   <li>the rest, in revision order ({@link AfterLoad#kept}): the run that follows the loaded revision is the
     *       next batch to apply ({@link AfterLoad#next}); a revision missing after it is a gap
     *       ({@link AfterLoad#gapAt}).</li>
     * </ul>
     */
    public <M extends Event> AfterLoad<M> afterLoad(List<M> buffer, int heardBeforeLoad, Stamp loaded) {
        List<M> kept = new ArrayList<>();
        List<M> impossible = new ArrayList<>(0);
        boolean keysChangedAgain = false;
        for (int i = 0; i < buffer.size(); i++) {
            M message = buffer.get(i);
            if (otherIncarnation(loaded, message.incarnation())) {
                keysChangedAgain |= i >= heardBeforeLoad;
            } else if (i < heardBeforeLoad && message.revision() > loaded.revision()) {
                impossible.add(message);
            } else {
                kept.add(message);
            }
        }
        kept.sort(Comparator.comparingLong(Event::revision));
        List<M> next = new ArrayList<>();
        int gapAt = -1;
        for (int i = 0; i < kept.size() && gapAt < 0; i++) {
            M message = kept.get(i);
            long expected = loaded.revision() + next.size() + 1;
            if (message.revision() > expected) {
                gapAt = i;
            } else if (message.revision() == expected) {
                next.add(message);
            }
        }
        return new AfterLoad<>(kept, next, gapAt, impossible, keysChangedAgain);
    }

    /**
     * The events kept during a load, sorted out (see {@link #afterLoad}).
     *
     * @param kept             the events of the loaded keys that may follow the load, in revision order
     * @param next             those that follow the loaded revision one by one: the next batch to apply
     * @param gapAt            the index in {@code kept} of the first event past a missing revision, or -1
     * @param impossible       the events Redis never had (to reject)
     * @param keysChangedAgain an event heard after the load started is of other keys: load again
     */
    public record AfterLoad<M extends Event>(List<M> kept, List<M> next, int gapAt, List<M> impossible,
                                             boolean keysChangedAgain) {
        /** The kept events after {@code message} (one of them): what waits for the next load when it failed. */
        public List<M> after(M message) {
            return kept.subList(kept.indexOf(message) + 1, kept.size());
        }

        /** The kept events from the gap on: what waits for the next load. */
        public List<M> fromGap() {
            return gapAt < 0 ? List.of() : kept.subList(gapAt, kept.size());
        }
    }
}
