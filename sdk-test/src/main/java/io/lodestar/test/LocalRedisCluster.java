package io.lodestar.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Three {@link ManagedRedisServer} cluster nodes, formed in Java with raw commands (no {@code redis-cli}, which
 * embedded-redis does not ship): each node takes a third of the slots ({@code CLUSTER ADDSLOTSRANGE}) and a
 * distinct config epoch ({@code CLUSTER SET-CONFIG-EPOCH}), then node 0 meets the others.
 */
final class LocalRedisCluster implements RedisCluster {

    static final int SLOTS = 16384;
    static final int MASTERS = 3;
    /** The split {@code redis-cli --cluster create} makes for three masters. */
    private static final int[][] SLOT_RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(30);
    static final List<String> NODE_ARGS = List.of(
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "2000",
            "--cluster-require-full-coverage", "no");

    private final String name;
    private final List<ManagedRedisServer> nodes;
    private final List<RedisServer> views;
    private boolean closed;

    private LocalRedisCluster(String name, List<ManagedRedisServer> nodes) {
        this.name = name;
        this.nodes = List.copyOf(nodes);
        List<RedisServer> masterViews = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            masterViews.add(new MasterView(i, this.nodes.get(i)));
        }
        this.views = List.copyOf(masterViews);
    }

    /**
     * Starts three nodes, forms the cluster and waits until it is healthy.
     *
     * @throws IllegalStateException if a node does not start, or the cluster is not healthy within 30 s
     */
    static LocalRedisCluster start(RedisSource.Binary binary, String name) {
        List<ManagedRedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < MASTERS; i++) {
                nodes.add(ManagedRedisServer.start(binary, name + " node " + i, NODE_ARGS, true));
            }
            LocalRedisCluster cluster = new LocalRedisCluster(name, nodes);
            cluster.form();
            return cluster;
        } catch (RuntimeException e) {
            try {
                ManagedRedisServer.closeAll(nodes); // every node, even if one of them fails to close
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    private void form() {
        try {
            for (int i = 0; i < MASTERS; i++) {
                try (Resp resp = connect(i)) {
                    resp.call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(SLOT_RANGES[i][0]),
                            Integer.toString(SLOT_RANGES[i][1]));
                    resp.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
                }
            }
            try (Resp resp = connect(0)) {
                for (int i = 1; i < MASTERS; i++) {
                    resp.call("CLUSTER", "MEET", ManagedRedisServer.HOST, Integer.toString(nodes.get(i).port()));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot form " + name + ": " + e.getMessage(), e);
        }
        awaitHealthy("forming");
    }

    private Resp connect(int index) throws IOException {
        return Resp.connect(ManagedRedisServer.HOST, nodes.get(index).port(), ServerInfo.TIMEOUT);
    }

    /**
     * Waits until every node reports {@code cluster_state:ok}, all slots assigned, and sees three masters with
     * no {@code fail}/{@code fail?} flag.
     */
    private void awaitHealthy(String phase) {
        long deadline = System.nanoTime() + HEALTHY_TIMEOUT.toNanos();
        List<String> problems = healthProblems();
        while (!problems.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException(name + " is not healthy after " + phase + " within "
                        + HEALTHY_TIMEOUT.toSeconds() + " s: " + String.join("; ", problems));
            }
            ManagedRedisServer.sleep(Duration.ofMillis(50));
            problems = healthProblems();
        }
    }

    /** One entry per unhealthy node, with the state that makes it so; empty when healthy. */
    private List<String> healthProblems() {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            try (Resp resp = connect(i)) {
                Map<String, String> info = ServerInfo.parseInfo(resp.callString("CLUSTER", "INFO"));
                List<String> lines = resp.callString("CLUSTER", "NODES").lines()
                        .filter(line -> !line.isBlank()).collect(Collectors.toList());
                long healthyMasters = lines.stream()
                        .map(line -> line.split(" "))
                        .filter(f -> f.length > 7 && f[2].contains("master") && !f[2].contains("fail")
                                && f[7].equals("connected"))
                        .count();
                boolean ok = "ok".equals(info.get("cluster_state"))
                        && Integer.toString(SLOTS).equals(info.get("cluster_slots_assigned"))
                        && Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"))
                        && Integer.toString(MASTERS).equals(info.get("cluster_known_nodes"))
                        && healthyMasters == MASTERS;
                if (!ok) {
                    problems.add("node " + i + " (port " + nodes.get(i).port() + "): cluster_state="
                            + info.get("cluster_state") + " slots_ok=" + info.get("cluster_slots_ok")
                            + " known_nodes=" + info.get("cluster_known_nodes") + " healthy_masters="
                            + healthyMasters);
                }
            } catch (IOException e) {
                problems.add("node " + i + " (port " + nodes.get(i).port() + "): " + e.getMessage());
            }
        }
        return problems;
    }

    private synchronized void ensureOpen(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + " on a closed " + name);
        }
    }

    @Override
    public List<RedisServer> masters() {
        return views;
    }

    @Override
    public String uri() {
        return "redis-cluster://" + nodes.stream()
                .map(n -> n.host() + ":" + n.port())
                .collect(Collectors.joining(","));
    }

    @Override
    public List<String> seedUris() {
        return nodes.stream().map(ManagedRedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    @Override
    public String version() {
        return nodes.get(0).version();
    }

    @Override
    public void kill(int masterIndex) {
        ManagedRedisServer node = nodes.get(masterIndex);
        ensureOpen("kill(" + masterIndex + ")");
        node.kill();
    }

    @Override
    public void restart(int masterIndex) {
        ManagedRedisServer node = nodes.get(masterIndex);
        ensureOpen("restart(" + masterIndex + ")");
        node.restart();
        awaitHealthy("restarting node " + masterIndex);
    }

    @Override
    public long disconnectClients(String type) {
        long total = 0;
        for (ManagedRedisServer node : nodes) {
            if (node.isRunning()) {
                total += node.disconnectClients(type);
            }
        }
        return total;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        ManagedRedisServer.closeAll(nodes);
    }

    /** The nodes themselves, for tests of the kit. */
    List<ManagedRedisServer> nodes() {
        return nodes;
    }

    @Override
    public String toString() {
        return name + " " + uri();
    }

    /** A master as a {@link RedisServer}: kill/restart go through the cluster; close is the cluster's job. */
    private final class MasterView extends ForwardingRedisServer {
        private final int index;

        MasterView(int index, ManagedRedisServer node) {
            super(node);
            this.index = index;
        }

        @Override
        public void kill() {
            LocalRedisCluster.this.kill(index);
        }

        @Override
        public void restart() {
            LocalRedisCluster.this.restart(index);
        }

        @Override
        public void close() {
            // The cluster owns its nodes.
        }

        @Override
        public String toString() {
            return "master " + index + " of " + LocalRedisCluster.this;
        }
    }
}
