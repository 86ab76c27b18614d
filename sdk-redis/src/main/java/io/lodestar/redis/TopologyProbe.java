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
 * runs share it.
 */
final class TopologyProbe {
    private static final Logger log = LoggerFactory.getLogger(TopologyProbe.class);

    private final RedisClusterClient client;
    private final Supplier<StatefulRedisClusterConnection<String, String>> connection;
    private final Supplier<String> defaultNode;
    private final Supplier<Set<String>> reachable;
    private final Supplier<CompletionStage<Void>> refresh;
    private final AtomicReference<CompletableFuture<Void>> running = new AtomicReference<>();
    private final AtomicInteger turn = new AtomicInteger();

    /**
     * @param connection  the client's cluster connection, or null before it opened
     * @param defaultNode the {@code host:port} of the node the cluster connection sends keyless commands to, or null
     * @param reachable   the {@code host:port} of the nodes whose connections of the client all answer now
     * @param refresh     Lettuce's topology refresh; never fails
     */
    TopologyProbe(RedisClusterClient client, Supplier<StatefulRedisClusterConnection<String, String>> connection,
                  Supplier<String> defaultNode, Supplier<Set<String>> reachable,
                  Supplier<CompletionStage<Void>> refresh) {
        this.client = client;
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
        probe().whenComplete((ignored, failure) -> {
            running.set(null);
            mine.complete(null);
        });
        return mine;
    }

    /**
     * Asks the cluster connection's default node when it answers (no connection to open), then, if that fails or
     * it does not answer, another node that answers, in turn (over the connection the client's commands for its slots
     * use, opened now if it had none); refreshes when the view differs or neither answered.
     */
    private CompletionStage<Void> probe() {
        StatefulRedisClusterConnection<String, String> cluster = connection.get();
        return cluster == null ? refresh.get() : ask(cluster, nodesToAsk(), 0);
    }

    private CompletionStage<Void> ask(StatefulRedisClusterConnection<String, String> cluster, List<Asked> nodes,
                                      int next) {
        if (next == nodes.size()) {
            return refresh.get();
        }
        Asked asked = nodes.get(next);
        CompletionStage<String> topology = asked.node() == null ? cluster.async().clusterNodes()
                : cluster.getConnectionAsync(asked.node().getUri().getHost(), asked.node().getUri().getPort())
                        .thenCompose(nodeConnection -> nodeConnection.async().clusterNodes());
        return topology.handle((view, failure) -> {
            if (failure != null) {
                log.debug("Asking {} for the topology failed: {}", asked.address(), failure.toString());
                return ask(cluster, nodes, next + 1);
            }
            if (changed(view)) {
                log.debug("{} sees another topology: refreshing it", asked.address());
                return refresh.get();
            }
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(done -> done);
    }

    /** The default node if it answers, and the next other node that answers, in turn: none, one or two. */
    private List<Asked> nodesToAsk() {
        Set<String> answering = reachable.get();
        String defaultAddress = defaultNode.get();
        List<Asked> asked = new ArrayList<>(2);
        if (defaultAddress != null && answering.contains(defaultAddress)) {
            asked.add(new Asked(defaultAddress, null));
        }
        List<RedisClusterNode> others = new ArrayList<>();
        for (RedisClusterNode node : client.getPartitions()) {
            String address = address(node);
            if (answering.contains(address) && !address.equals(defaultAddress)) {
                others.add(node);
            }
        }
        if (!others.isEmpty()) {
            RedisClusterNode node = others.get(Math.floorMod(turn.getAndIncrement(), others.size()));
            asked.add(new Asked(address(node), node));
        }
        return asked;
    }

    /** A node to ask: {@code node} null for the cluster connection's default node. */
    private record Asked(String address, RedisClusterNode node) {
    }

    /** Whether the node's {@code CLUSTER NODES} reply, filtered as the client's refresh would, is another topology. */
    private boolean changed(String clusterNodes) {
        Partitions seen = ClusterPartitionParser.parse(clusterNodes);
        Predicate<RedisClusterNode> keep = ((ClusterClientOptions) client.getOptions()).getNodeFilter();
        List<RedisClusterNode> dropped = new ArrayList<>();
        for (RedisClusterNode node : seen) {
            if (!keep.test(node)) {
                dropped.add(node);
            }
        }
        seen.removeAll(dropped); // updates its caches
        return TopologyComparators.isChanged(client.getPartitions(), seen);
    }

    private static String address(RedisClusterNode node) {
        return node.getUri().getHost() + ":" + node.getUri().getPort();
    }
}
