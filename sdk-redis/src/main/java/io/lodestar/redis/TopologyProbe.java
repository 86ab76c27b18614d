package io.lodestar.redis;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.topology.TopologyComparators;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Cluster: refreshes the client's topology only when it changed, asking one reachable node first.
 *
 * <p>Why: while a node is unreachable, a client asks for the topology several times a second (each failed
 * reconnect, each re-homing round of its orphaned subscriptions), so that it sees a replica's promotion within
 * about half a second. Lettuce's refresh opens a new connection to every node each time; with a thousand clients
 * that was thousands of connections a second to nodes already busy with the crowd, which then answered the
 * handshakes late, so the connections waited out their connect timeout and the clients ran out of file
 * descriptors (docs/benchmarks.md, "On the local 3-master cluster: 1,000 clients", the restart that failed). A
 * node that stays down, or comes back as it was, changes no topology. So the probe sends {@code CLUSTER NODES} to
 * one node that answers, over a connection the client has (its cluster connection's default node when that one
 * answers, else another node in turn), compares the answer with the client's topology the way Lettuce does before
 * it announces a change ({@link TopologyComparators}: nodes, their roles and slots, after the client's node filter),
 * and only when they differ runs Lettuce's refresh. With no node that answers to ask (a client that knows only the
 * node that is down), or when the node asked does not answer, it refreshes as before. Probes asked for while one
 * runs share it, and the clients of one JVM that watch the same cluster share a look for 100 ms: one client asks
 * and parses, the others compare its view with their own topology.
 */
final class TopologyProbe {
    private static final Logger log = LoggerFactory.getLogger(TopologyProbe.class);
    /** How long one client's look at a cluster serves the other clients of the JVM that watch it. */
    private static final long SHARED_FOR_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * The latest look at each cluster (by its redacted URI) of any client of this JVM: parsing a reply costs more
     * than asking for it, and a JVM with 500 clients of one cluster made 500 looks each round (a profile of the
     * cluster fleet's restart: most of the Lettuce I/O threads' time).
     */
    private static final ConcurrentMap<String, Look> LATEST = new ConcurrentHashMap<>();

    private final RedisClusterClient client;
    private final String cluster;
    private final Supplier<StatefulRedisClusterConnection<String, String>> connection;
    private final Supplier<String> defaultNode;
    private final Supplier<Set<String>> reachable;
    private final Supplier<CompletionStage<Void>> refresh;
    private final AtomicReference<CompletableFuture<Void>> running = new AtomicReference<>();
    private final AtomicInteger turn = new AtomicInteger();

    /**
     * @param cluster     the cluster's redacted URI: clients with the same one share their looks
     * @param connection  the client's cluster connection, or null before it opened
     * @param defaultNode the {@code host:port} of the node the cluster connection sends keyless commands to, or null
     * @param reachable   the {@code host:port} of the nodes whose connections of the client all answer now
     * @param refresh     Lettuce's topology refresh; never fails
     */
    TopologyProbe(RedisClusterClient client, String cluster,
                  Supplier<StatefulRedisClusterConnection<String, String>> connection,
                  Supplier<String> defaultNode, Supplier<Set<String>> reachable,
                  Supplier<CompletionStage<Void>> refresh) {
        this.client = client;
        this.cluster = cluster;
        this.connection = connection;
        this.defaultNode = defaultNode;
        this.reachable = reachable;
        this.refresh = refresh;
    }

    /** Refreshes the topology if one reachable node's view of it differs from the client's; never fails. */
    CompletionStage<Void> refreshIfChanged() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> other = running.compareAndExchange(null, mine);
        if (other != null) {
            return other;
        }
        CompletionStage<Void> probing;
        try {
            probing = probe();
        } catch (RuntimeException e) { // a probe that never ended would keep this client from ever looking again
            log.debug("Looking at the topology of {} failed: {}", cluster, e.toString());
            probing = CompletableFuture.completedFuture(null);
        }
        probing.whenComplete((ignored, failure) -> {
            running.set(null);
            mine.complete(null);
        });
        return mine;
    }

    /** Compares the latest look at the cluster (this client's own, or one another client took in the last 100 ms). */
    private CompletionStage<Void> probe() {
        StatefulRedisClusterConnection<String, String> clusterConnection = connection.get();
        if (clusterConnection == null) {
            return refresh.get();
        }
        long now = System.nanoTime();
        Look mine = new Look(now, new CompletableFuture<>());
        Look latest = LATEST.compute(cluster, (key, previous) -> previous != null
                && now - previous.startedNanos() < SHARED_FOR_NANOS && !previous.view().isCompletedExceptionally()
                ? previous : mine);
        if (latest == mine) {
            CompletionStage<Partitions> asking;
            try {
                asking = ask(clusterConnection, nodesToAsk(), 0);
            } catch (RuntimeException e) { // the clients sharing this look must not wait for it forever
                asking = CompletableFuture.failedFuture(e);
            }
            asking.whenComplete((view, failure) -> {
                if (failure != null) {
                    mine.view().completeExceptionally(failure);
                } else {
                    mine.view().complete(view);
                }
            });
        }
        return latest.view().handle((view, failure) -> {
            if (failure != null) {
                return refresh.get();
            }
            if (TopologyComparators.isChanged(client.getPartitions(), view)) {
                log.debug("A node of {} sees another topology: refreshing it", cluster);
                return refresh.get();
            }
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(done -> done);
    }

    /**
     * The topology as the cluster connection's default node sees it when that node answers (no connection to
     * open), else (or if it fails) as another node that answers sees it, in turn (over the connection the client's
     * commands for its slots use, opened now if it had none), filtered as the client's refresh would; fails when
     * neither answered.
     */
    private CompletionStage<Partitions> ask(StatefulRedisClusterConnection<String, String> clusterConnection,
                                            List<Asked> nodes, int next) {
        if (next == nodes.size()) {
            return CompletableFuture.failedFuture(new IllegalStateException("no node of " + cluster + " answered"));
        }
        Asked asked = nodes.get(next);
        CompletionStage<String> topology = asked.node() == null ? clusterConnection.async().clusterNodes()
                // by host and port: the connection the client's commands for the node's slots use (Lettuce keeps
                // one by node id apart)
                : clusterConnection.getConnectionAsync(asked.node().getUri().getHost(), asked.node().getUri().getPort())
                        .thenCompose(nodeConnection -> nodeConnection.async().clusterNodes());
        return topology.handle((reply, failure) -> {
            if (failure != null) {
                log.debug("Asking {} for the topology failed: {}", asked.address(), failure.toString());
                return ask(clusterConnection, nodes, next + 1);
            }
            return CompletableFuture.completedFuture(filtered(reply));
        }).thenCompose(view -> view);
    }

    /** The default node if it answers, and the next other node that answers, in turn: none, one or two. */
    private List<Asked> nodesToAsk() {
        Set<String> answering = reachable.get();
        String defaultAddress = defaultNode.get();
        List<Asked> asked = new ArrayList<>(2);
        if (defaultAddress != null && answering.contains(defaultAddress)) {
            asked.add(new Asked(defaultAddress, null));
        }
        List<Asked> others = new ArrayList<>();
        for (RedisClusterNode node : client.getPartitions()) {
            String address = RedisBackend.address(node);
            if (answering.contains(address) && !address.equals(defaultAddress)) {
                others.add(new Asked(address, node));
            }
        }
        if (!others.isEmpty()) {
            asked.add(others.get(Math.floorMod(turn.getAndIncrement(), others.size())));
        }
        return asked;
    }

    /** A {@code CLUSTER NODES} reply as the client's refresh would keep it (after its node filter). */
    private Partitions filtered(String clusterNodes) {
        Partitions seen = ClusterPartitionParser.parse(clusterNodes);
        Predicate<RedisClusterNode> keep = ((ClusterClientOptions) client.getOptions()).getNodeFilter();
        List<RedisClusterNode> dropped = new ArrayList<>();
        for (RedisClusterNode node : seen) {
            if (!keep.test(node)) {
                dropped.add(node);
            }
        }
        seen.removeAll(dropped); // updates its caches
        return seen;
    }

    /** A node to ask: {@code node} null for the cluster connection's default node. */
    private record Asked(String address, RedisClusterNode node) {
    }

    /** A look at a cluster: when it started, and the topology it saw (read only: shared by the JVM's clients). */
    private record Look(long startedNanos, CompletableFuture<Partitions> view) {
    }
}
