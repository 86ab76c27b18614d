package io.lodestar.redis;

import io.lodestar.redis.internal.time.Clock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cluster: the node that last dropped each channel's subscription ({@code sunsubscribe} after a failover or a slot
 * migration), and when. For a while after, a topology that still names that node as the slot's owner is taken for
 * an old one: the dropping node, now a replica, would even accept the subscription, but messages reach it only once
 * it has taken in the new configuration, so a resync done meanwhile could be followed by events it never gets.
 */
final class DropMemory {
    /** A drop of a channel by a node, at {@code atNanos} of the clock. */
    record Drop(String nodeId, long atNanos) {
    }

    private final Clock clock;
    private final long memoryNanos;
    private final Map<String, Drop> droppedBy = new ConcurrentHashMap<>();

    DropMemory(Clock clock, Duration memory) {
        this.clock = clock;
        this.memoryNanos = memory.toNanos();
    }

    /** The node {@code nodeId} dropped the channel's subscription now. */
    void dropped(String channel, String nodeId) {
        droppedBy.put(channel, new Drop(nodeId, clock.nanoTime()));
    }

    /** The channel's last drop, or null. */
    Drop of(String channel) {
        return droppedBy.get(channel);
    }

    /** Whether the drop forbids subscribing at {@code ownerId} now: the owner is the node that dropped, recently. */
    boolean forbids(Drop drop, String ownerId) {
        return drop != null && drop.nodeId().equals(ownerId) && clock.nanoTime() - drop.atNanos() < memoryNanos;
    }

    /** The channel is subscribed again: forgets {@code drop}, unless a newer one came meanwhile. */
    void resolved(String channel, Drop drop) {
        if (drop != null) {
            droppedBy.remove(channel, drop);
        }
    }

    /** The channel is no longer followed. */
    void forget(String channel) {
        droppedBy.remove(channel);
    }
}
