package io.lodestar.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lodestar.core.UnavailableException;
import io.lodestar.redis.internal.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Cluster: shard channels subscribed at the node that owns their slot, and followed wherever the slot goes. When
 * Redis drops a subscription ({@code sunsubscribe} after a failover or a slot migration) or the node carrying it is
 * lost, the channel is orphaned: subscribed again at the slot's owner after a topology refresh, in rounds (see
 * {@link RehomeSchedule}) until that succeeds, and then reported to {@link Host#resubscribed} so the view re-reads
 * what it may have missed. Never blocks: a node that is down fails a subscribe at once.
 */
final class ClusterSubscriptions {
    /** What the subscriptions need of the backend. */
    interface Host {
        /**
         * The cluster PubSub connection (routes to the node connections), opened on the first call; fails when it
         * cannot be opened, and before the client ever connected.
         */
        CompletionStage<StatefulRedisClusterPubSubConnection<String, String>> pubSub();

        /** The client's topology (Lettuce keeps it current; the PubSub connection routes by it). */
        Partitions topology();

        /** A topology refresh; never fails (a failed one keeps the old topology). */
        CompletionStage<Void> refreshTopology();

        /**
         * A topology refresh if a reachable node sees another topology than the client's (no new connections
         * otherwise); never fails.
         */
        CompletionStage<Void> refreshTopologyIfChanged();

        /** Whether the connection is lost now (reconnecting, or Redis left it silent). */
        boolean isLost(RedisChannelHandler<?, ?> connection);

        /** A node connection is in use: the heartbeat PINGs it. */
        void opened(StatefulRedisPubSubConnection<String, String> connection);

        /** The channel is subscribed again after it was orphaned (any thread). */
        void resubscribed(String channel);

        /** Every subscription is in place again after some were orphaned. */
        void allInPlace();
    }

    /** How long a topology that still names the node that dropped a subscription is taken for an old one. */
    static final Duration DROP_MEMORY = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger(ClusterSubscriptions.class);

    private final Host host;
    private final PingBarrier barrier;
    private final Duration timeout;
    private final String where;
    private final BooleanSupplier closed;
    /** The channels the views follow, and the node each is subscribed at once Redis confirmed it. */
    private final Set<String> wanted = ConcurrentHashMap.newKeySet();
    private final Map<String, String> subscribedAt = new ConcurrentHashMap<>();
    /** The PubSub connection per node id. */
    private final Map<String, StatefulRedisPubSubConnection<String, String>> nodeConnections =
            new ConcurrentHashMap<>();
    /** Channels whose subscription was dropped or lost, waiting to be subscribed at their owner. */
    private final Set<String> orphans = ConcurrentHashMap.newKeySet();
    /** Unsubscribes of ours whose confirmation has not come yet, per channel. */
    private final Map<String, Integer> unsubscribing = new ConcurrentHashMap<>();
    private final DropMemory drops;
    private final RehomeSchedule rehoming;

    ClusterSubscriptions(Host host, PingBarrier barrier, Clock clock, Duration timeout, String where,
                         BooleanSupplier closed) {
        this.host = host;
        this.barrier = barrier;
        this.timeout = timeout;
        this.where = where;
        this.closed = closed;
        this.drops = new DropMemory(clock, DROP_MEMORY);
        this.rehoming = new RehomeSchedule(clock, () -> !closed.getAsBoolean() && !orphans.isEmpty(), this::rehome);
    }

    /** Whether every channel followed is subscribed at a reachable node (or being confirmed there). */
    boolean inPlace() {
        return orphans.isEmpty();
    }

    /** Whether the connection is a node connection of these subscriptions. */
    boolean carries(RedisChannelHandler<?, ?> connection) {
        return nodeConnections.containsValue(connection);
    }

    /** Subscribes the channels, one SSUBSCRIBE per slot at its owner, and follows them from then on. */
    CompletionStage<Void> subscribe(List<String> channels) {
        wanted.addAll(channels);
        return CompletableFuture.allOf(bySlot(channels).stream()
                .map(ofSlot -> subscribeAtOwner(ofSlot, true).toCompletableFuture())
                .toArray(CompletableFuture[]::new));
    }

    /** Unsubscribes a channel at the node it is subscribed at, and stops following it. */
    CompletionStage<Void> unsubscribe(String channel) {
        wanted.remove(channel);
        orphans.remove(channel);
        drops.forget(channel);
        String node = subscribedAt.remove(channel);
        // Redis confirms with the same "sunsubscribe" message it sends when it drops a subscription: count ours,
        // so that a subscribe of the same channel right after (a view reading it again) does not take the
        // confirmation for a drop.
        unsubscribing.merge(channel, 1, Integer::sum);
        return CompletableFuture.completedFuture(null)
                .thenCompose(ignored -> node != null ? nodeConnection(node) : ownerConnection(channel).connection())
                .thenCompose(connection -> connection.async().sunsubscribe(channel))
                .whenComplete((ok, failure) -> {
                    if (failure != null) {
                        confirmedUnsubscribe(channel); // no confirmation will come
                    }
                });
    }

    /** Redis said a subscription ended: ours on purpose (no longer wanted), or dropped because its slot moved. */
    void dropped(RedisClusterNode node, String channel) {
        if (confirmedUnsubscribe(channel) || closed.getAsBoolean() || !wanted.contains(channel)) {
            return;
        }
        String at = subscribedAt.get(channel);
        if (node != null && at != null && !at.equals(node.getNodeId())) {
            return; // a stale subscription at a node the channel left already
        }
        subscribedAt.remove(channel, at);
        if (node != null) {
            drops.dropped(channel, node.getNodeId());
        }
        log.debug("Redis at {} dropped the subscription of {}{}; subscribing at the slot's owner", where, channel,
                node == null ? "" : " at " + node.getUri());
        orphan(List.of(channel));
    }

    /**
     * A lost node connection takes its subscriptions along until it is back or another node owns their slots
     * (a master killed, its replica promoted): follow them at once rather than wait for the node. If the node
     * comes back as the owner, subscribing there again is harmless.
     *
     * @return whether the connection carried subscriptions
     */
    boolean orphanSubscriptionsOf(RedisChannelHandler<?, ?> connection) {
        List<String> channels = new ArrayList<>();
        nodeConnections.forEach((node, nodeConnection) -> {
            if (nodeConnection == connection) {
                subscribedAt.forEach((channel, at) -> {
                    if (at.equals(node) && subscribedAt.remove(channel, at)) {
                        channels.add(channel);
                    }
                });
            }
        });
        if (!channels.isEmpty()) {
            orphan(channels);
        }
        return !channels.isEmpty();
    }

    /**
     * A node connection is back (reconnected, or answers again), or the client's topology changed (a replica promoted,
     * seen by any refresh: a write's, Lettuce's own, a round's): orphans need not wait for the next round.
     */
    void retrySoon() {
        if (!orphans.isEmpty()) {
            rehoming.retrySoon();
        }
    }

    /** @return whether a pending unsubscribe of ours explains a "sunsubscribe" message for this channel */
    private boolean confirmedUnsubscribe(String channel) {
        boolean[] ours = new boolean[1];
        unsubscribing.computeIfPresent(channel, (key, pending) -> {
            ours[0] = true;
            return pending > 1 ? pending - 1 : null;
        });
        return ours[0];
    }

    /** The channels grouped by cluster slot (one SSUBSCRIBE each), in slot order. */
    private static Collection<List<String>> bySlot(Collection<String> channels) {
        Map<Integer, List<String>> bySlot = new TreeMap<>();
        for (String channel : channels) {
            bySlot.computeIfAbsent(SlotHash.getSlot(channel), slot -> new ArrayList<>()).add(channel);
        }
        return bySlot.values();
    }

    /**
     * SSUBSCRIBE of channels of one slot at the slot's owner as this client's topology says (one command and a
     * PING, see {@link PingBarrier}); on a redirect (the topology is older than the move) once more after a
     * refresh.
     */
    private CompletionStage<Void> subscribeAtOwner(List<String> channels, boolean refreshOnRedirect) {
        CompletableFuture<Void> subscribed = new CompletableFuture<>();
        CompletableFuture.completedFuture(null)
                .thenCompose(ignored -> {
                    Owner owner = ownerConnection(channels.get(0));
                    List<DropMemory.Drop> drops = new ArrayList<>(channels.size());
                    for (String channel : channels) {
                        DropMemory.Drop drop = this.drops.of(channel);
                        if (this.drops.forbids(drop, owner.nodeId())) {
                            throw new UnavailableException("The topology of " + where + " still names the node"
                                    + " that dropped " + channel);
                        }
                        drops.add(drop);
                    }
                    // Subscribed at the owner already (and neither dropped nor lost since: either forgets it), e.g.
                    // re-homed before the resync that follows: not sent again.
                    List<String> missing = channels.stream()
                            .filter(channel -> !owner.nodeId().equals(subscribedAt.get(channel))).toList();
                    if (missing.isEmpty()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    return owner.connection()
                            .thenCompose(connection -> barrier.subscribe(connection, missing))
                            .thenRun(() -> {
                                for (int i = 0; i < channels.size(); i++) {
                                    subscribedAt.put(channels.get(i), owner.nodeId());
                                    this.drops.resolved(channels.get(i), drops.get(i));
                                }
                            });
                })
                .whenComplete((ok, failure) -> {
                    if (failure == null) {
                        subscribed.complete(null);
                    } else if (refreshOnRedirect && isRedirect(failure)) {
                        host.refreshTopology().thenCompose(ignored -> subscribeAtOwner(channels, false))
                                .whenComplete((again, failed) -> {
                                    if (failed == null) {
                                        subscribed.complete(null);
                                    } else {
                                        subscribed.completeExceptionally(failed);
                                    }
                                });
                    } else {
                        subscribed.completeExceptionally(failure);
                    }
                });
        return subscribed;
    }

    private static boolean isRedirect(Throwable failure) {
        String message = String.valueOf(Errors.unwrap(failure).getMessage());
        return message.startsWith("MOVED") || message.startsWith("ASK");
    }

    private record Owner(String nodeId, CompletionStage<StatefulRedisPubSubConnection<String, String>> connection) {
    }

    /** The owner of a channel's slot and its PubSub connection; fails at once when that node is lost. */
    private Owner ownerConnection(String channel) {
        RedisClusterNode owner = host.topology().getPartitionBySlot(SlotHash.getSlot(channel));
        if (owner == null) {
            throw new UnavailableException("No cluster node at " + where + " owns the slot of " + channel);
        }
        return new Owner(owner.getNodeId(), nodeConnection(owner.getNodeId()));
    }

    /**
     * A node's PubSub connection, opened without blocking; a lost one fails at once instead of queueing. One closed
     * for good is forgotten and a new one opened: Lettuce closes the connection to a failed node that left the
     * topology (a killed master after its replica's promotion), and when that node comes back and is promoted in
     * turn, the old connection would make it look unreachable forever.
     */
    private CompletionStage<StatefulRedisPubSubConnection<String, String>> nodeConnection(String nodeId) {
        StatefulRedisPubSubConnection<String, String> known = nodeConnections.get(nodeId);
        if (known != null && ((RedisChannelHandler<?, ?>) known).isClosed()) {
            nodeConnections.remove(nodeId, known);
        } else if (known != null && host.isLost((RedisChannelHandler<?, ?>) known)) {
            return CompletableFuture.failedFuture(new UnavailableException("The cluster node " + nodeId + " at "
                    + where + " cannot be reached (reconnecting)"));
        }
        return host.pubSub().thenCompose(pubSub -> pubSub.getConnectionAsync(nodeId)).thenApply(connection -> {
            nodeConnections.put(nodeId, connection);
            host.opened(connection);
            return connection;
        });
    }

    private void orphan(Collection<String> channels) {
        orphans.addAll(channels);
        rehoming.orphaned();
    }

    /**
     * Refreshes the topology if it changed (see {@link TopologyProbe}), then subscribes every orphaned channel at its
     * owner and tells the host; channels whose owner cannot be reached yet (a master down, no replica promoted yet)
     * stay orphaned for the next round.
     * The round always ends (whatever fails in it), or no round would ever follow.
     */
    private void rehome(int attempt) {
        List<String> batch = new ArrayList<>(orphans);
        host.refreshTopologyIfChanged()
                .handle((refreshed, failure) -> subscribeAtOwners(batch))
                .thenCompose(progress -> progress)
                .whenComplete((progress, failure) -> {
                    if (failure != null) {
                        log.debug("Re-homing round {} of {} failed: {}", attempt, where, failure.toString());
                    }
                    boolean made = failure == null && progress;
                    if (made && orphans.isEmpty() && !closed.getAsBoolean()) {
                        // Every subscription is in place again: what a lost node made stale can resync and be fresh.
                        host.allInPlace();
                    }
                    rehoming.roundDone(attempt, made);
                });
    }

    /** Subscribes the channels still wanted at their owners, one SSUBSCRIBE per slot; completes: any progress. */
    private CompletableFuture<Boolean> subscribeAtOwners(List<String> batch) {
        List<CompletableFuture<Boolean>> results = new ArrayList<>();
        List<String> stillWanted = new ArrayList<>(batch.size());
        for (String channel : batch) {
            if (wanted.contains(channel)) {
                stillWanted.add(channel);
            } else {
                orphans.remove(channel);
            }
        }
        for (List<String> channels : bySlot(stillWanted)) { // one SSUBSCRIBE per slot (a bucket's services)
            results.add(subscribeAtOwner(channels, false).toCompletableFuture()
                    .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .handle((ok, failed) -> {
                        if (failed != null) {
                            log.debug("Cannot subscribe {} channels of slot {} at their owner yet: {}",
                                    channels.size(), SlotHash.getSlot(channels.get(0)), failed.toString());
                            return false;
                        }
                        orphans.removeAll(channels);
                        channels.forEach(host::resubscribed);
                        return true;
                    })
                    .exceptionally(handlerFailed -> { // subscribed, but a view was not told: a bug, say so
                        log.warn("Re-subscribed {} channels at {}, but telling the views failed", channels.size(),
                                where, handlerFailed);
                        return true;
                    }));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
                .thenApply(all -> results.stream().anyMatch(CompletableFuture::join));
    }
}
