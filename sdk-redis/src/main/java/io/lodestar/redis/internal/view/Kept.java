package io.lodestar.redis.internal.view;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one topic keeps serving after Redis lost its data: the items (instances of a service, a config's content)
 * the view held that Redis no longer holds, each until its owner has had the time to write it again. An item leaves
 * when Redis holds it again or an event of it arrives ({@link #resolved}), or when its time is up ({@link #due}): then
 * the view drops it and tells listeners it left. An item kept without a time stays until written again or really
 * removed. View thread only; times are a {@code Clock}'s nanoseconds.
 *
 * <p>Why: a Redis restart without its data (no persistence, a failover to an empty replica) makes every topic come
 * back under a new incarnation with nothing or with the few items re-registered first; applying that would show every
 * service empty and then its instances return one by one.
 */
public final class Kept {
    /** The deadline of an item kept without a time. */
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private final Map<String, Long> until = new HashMap<>();

    /**
     * Keeps items not kept yet, each for its grace from {@code now} (null: until written again); one kept already
     * keeps its deadline (a second loss does not extend it).
     */
    public void keep(Map<String, Duration> lost, long now) {
        lost.forEach((item, grace) -> until.putIfAbsent(item, grace == null ? NO_DEADLINE : now + grace.toNanos()));
    }

    /** Stops keeping the items Redis holds again: every one not in {@code stillMissing}. */
    public void retainOnly(Set<String> stillMissing) {
        until.keySet().retainAll(stillMissing);
    }

    /** Stops keeping an item an event wrote or removed (null: none). */
    public void resolved(String item) {
        if (item != null) {
            until.remove(item);
        }
    }

    /** The items kept now. */
    public Set<String> items() {
        return Set.copyOf(until.keySet());
    }

    public boolean isEmpty() {
        return until.isEmpty();
    }

    /** Removes and returns the items whose time is up at {@code now}. */
    public List<String> due(long now) {
        List<String> due = new ArrayList<>();
        until.entrySet().removeIf(entry -> {
            if (entry.getValue() != NO_DEADLINE && entry.getValue() - now <= 0) {
                due.add(entry.getKey());
                return true;
            }
            return false;
        });
        return due;
    }

    /** Nanoseconds from {@code now} until the next item is due (0 if one is), or -1 when none has a time. */
    public long nanosToNextDue(long now) {
        long next = -1;
        for (long deadline : until.values()) {
            if (deadline != NO_DEADLINE) {
                long left = Math.max(0, deadline - now);
                next = next < 0 ? left : Math.min(next, left);
            }
        }
        return next;
    }

    /** How many items are kept. */
    public int size() {
        return until.size();
    }
}
