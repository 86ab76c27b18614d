package io.lodestar.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Three {@link ManagedRedisServer} cluster masters, optionally each with one replica, formed in Java with raw
 * commands (no {@code redis-cli}, which embedded-redis does not ship): each master takes a third of the slots
 * ({@code CLUSTER ADDSLOTSRANGE}) and a distinct config epoch ({@code CLUSTER SET-CONFIG-EPOCH}), node 0 meets
 * the others, and each replica is told which master to follow ({@code CLUSTER REPLICATE}).
 *
 * <p>Nodes 0–2 start as the masters of shards 0–2, nodes 3–5 as their replicas. A shard is such a pair: a
 * failover swaps the roles inside it, a slot migration moves slots between shards.
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
    /** Settings that make failovers of a test cluster deterministic. */
    static final List<String> REPLICATION_ARGS = List.of(
            // A replica may always take over, however long its link was down (tests kill and restart nodes).
            "--cluster-replica-validity-factor", "0",
            // A replica stays in its shard, also when a migration leaves its master without slots.
            "--cluster-allow-replica-migration", "no",
            // A replica syncs at once, not 5 s after it asked.
            "--repl-diskless-sync-delay", "0");
    /** Redis gives up a manual failover after 5 s (CLUSTER_MF_TIMEOUT); the kit asks again after that. */
    private static final Duration MANUAL_FAILOVER_RETRY = Duration.ofSeconds(6);
    private static final int MIGRATE_BATCH = 100;
    private static final String MIGRATE_TIMEOUT_MS = "5000";

    private final String name;
    private final List<ManagedRedisServer> nodes;
    private final boolean replicated;
    private final List<RedisServer> masterViews;
    private final List<RedisServer> replicaViews;
    /** Node ids by node index; a node keeps its id across restarts (nodes.conf). */
    private final List<String> ids = new ArrayList<>();
    private boolean closed;

    private LocalRedisCluster(String name, List<ManagedRedisServer> nodes, boolean replicated) {
        this.name = name;
        this.nodes = List.copyOf(nodes);
        this.replicated = replicated;
        List<RedisServer> views = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            views.add(new NodeView(i, this.nodes.get(i)));
        }
        this.masterViews = List.copyOf(views.subList(0, MASTERS));
        this.replicaViews = List.copyOf(views.subList(MASTERS, views.size()));
    }

    /**
     * Starts three masters (and, with {@code replicas}, one replica for each), forms the cluster and waits until
     * it is healthy (replicas in sync).
     *
     * @throws IllegalStateException if a node does not start, or the cluster is not healthy within 30 s
     */
    static LocalRedisCluster start(RedisSource.Binary binary, String name, boolean replicas) {
        List<ManagedRedisServer> nodes = new ArrayList<>();
        List<String> args = new ArrayList<>(NODE_ARGS);
        if (replicas) {
            args.addAll(REPLICATION_ARGS);
        }
        try {
            for (int i = 0; i < (replicas ? 2 * MASTERS : MASTERS); i++) {
                String role = i < MASTERS ? "node " + i : "node " + i + " (replica of " + (i - MASTERS) + ")";
                nodes.add(ManagedRedisServer.start(binary, name + " " + role, args, true));
            }
            LocalRedisCluster cluster = new LocalRedisCluster(name, nodes, replicas);
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
            for (int i = 0; i < nodes.size(); i++) {
                try (Resp resp = connect(i)) {
                    ids.add(resp.callString("CLUSTER", "MYID"));
                    if (i < MASTERS) {
                        resp.call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(SLOT_RANGES[i][0]),
                                Integer.toString(SLOT_RANGES[i][1]));
                        resp.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
                    }
                }
            }
            try (Resp resp = connect(0)) {
                for (int i = 1; i < nodes.size(); i++) {
                    resp.call("CLUSTER", "MEET", ManagedRedisServer.HOST, Integer.toString(nodes.get(i).port()));
                }
            }
            for (int replica = MASTERS; replica < nodes.size(); replica++) {
                replicate(replica, replica - MASTERS);
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot form " + name + ": " + e.getMessage(), e);
        }
        awaitHealthy("forming");
    }

    /** {@code CLUSTER REPLICATE}, retried until the replica has heard of its master through the gossip. */
    private void replicate(int replica, int master) {
        await("making node " + replica + " a replica of node " + master, () -> {
            try (Resp resp = connect(replica)) {
                resp.call("CLUSTER", "REPLICATE", ids.get(master));
                return List.of();
            } catch (IOException e) {
                return List.of("node " + replica + ": " + e.getMessage());
            }
        });
    }

    private Resp connect(int index) throws IOException {
        return Resp.connect(ManagedRedisServer.HOST, nodes.get(index).port(), ServerInfo.TIMEOUT);
    }

    /** Polls until {@code problems} returns none; bounded by {@link #HEALTHY_TIMEOUT}. */
    private void await(String phase, Supplier<List<String>> problems) {
        long deadline = System.nanoTime() + HEALTHY_TIMEOUT.toNanos();
        List<String> found = problems.get();
        while (!found.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException(name + " did not settle after " + phase + " within "
                        + HEALTHY_TIMEOUT.toSeconds() + " s: " + String.join("; ", found));
            }
            ManagedRedisServer.sleep(Duration.ofMillis(50));
            found = problems.get();
        }
    }

    /**
     * Waits until every node reports {@code cluster_state:ok} with all slots served, knows every node, sees three
     * masters and no {@code fail}/{@code fail?} flag, and every replica's link to its master is up.
     */
    private void awaitHealthy(String phase) {
        await(phase, () -> clusterProblems(true));
    }

    /**
     * One entry per running node that is not settled, with the state that makes it so; empty when all are.
     * With {@code everyNode}, every node must run, be known and be free of failure flags (a kill leaves them).
     */
    private List<String> clusterProblems(boolean everyNode) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (!nodes.get(i).isRunning()) {
                if (everyNode) {
                    problems.add("node " + i + " is not running");
                }
                continue;
            }
            try (Resp resp = connect(i)) {
                Map<String, String> info = ServerInfo.parseInfo(resp.callString("CLUSTER", "INFO"));
                List<String[]> lines = nodesLines(resp);
                long healthyMasters = lines.stream()
                        .filter(f -> f[2].contains("master") && !f[2].contains("fail") && f[7].equals("connected")
                                && f.length > 8)
                        .count();
                boolean anyFailFlag = lines.stream().anyMatch(f -> f[2].contains("fail"));
                boolean ok = "ok".equals(info.get("cluster_state"))
                        && Integer.toString(SLOTS).equals(info.get("cluster_slots_assigned"))
                        && Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"))
                        && healthyMasters == MASTERS
                        && (!everyNode || Integer.toString(nodes.size()).equals(info.get("cluster_known_nodes"))
                                && !anyFailFlag);
                if (ok && everyNode && isReplica(lines)) {
                    String link = ServerInfo.info(resp, "replication").get("master_link_status");
                    ok = "up".equals(link);
                }
                if (!ok) {
                    problems.add("node " + i + " (port " + nodes.get(i).port() + "): cluster_state="
                            + info.get("cluster_state") + " slots_ok=" + info.get("cluster_slots_ok")
                            + " known_nodes=" + info.get("cluster_known_nodes") + " healthy_masters="
                            + healthyMasters + (anyFailFlag ? " (a node is flagged failing)" : ""));
                }
            } catch (IOException e) {
                problems.add("node " + i + " (port " + nodes.get(i).port() + "): " + e.getMessage());
            }
        }
        return problems;
    }

    /** {@code CLUSTER NODES}, one field array per node. */
    private static List<String[]> nodesLines(Resp resp) throws IOException {
        return resp.callString("CLUSTER", "NODES").lines()
                .filter(line -> !line.isBlank())
                .map(line -> line.trim().split(" "))
                .collect(Collectors.toList());
    }

    private static boolean isReplica(List<String[]> lines) {
        return lines.stream().anyMatch(f -> f[2].contains("myself") && f[2].contains("slave"));
    }

    /** Whether node {@code index} calls itself a master, or false if it cannot be asked. */
    private boolean callsItselfMaster(int index) {
        if (!nodes.get(index).isRunning()) {
            return false;
        }
        try (Resp resp = connect(index)) {
            return nodesLines(resp).stream().anyMatch(f -> f[2].contains("myself") && f[2].contains("master"));
        } catch (IOException e) {
            return false;
        }
    }

    /** The node index of a shard's current master. */
    private int masterOf(int shard) {
        requireShard(shard);
        int other = shard + MASTERS;
        if (replicated && !callsItselfMaster(shard) && callsItselfMaster(other)) {
            return other;
        }
        return shard;
    }

    private int replicaOf(int shard) {
        return masterOf(shard) == shard ? shard + MASTERS : shard;
    }

    private void requireShard(int shard) {
        if (shard < 0 || shard >= MASTERS) {
            throw new IndexOutOfBoundsException("shard must be 0, 1 or 2, but was " + shard);
        }
    }

    private void requireReplicas(String operation) {
        if (!replicated) {
            throw new IllegalStateException(operation + " needs replicas, but " + name + " has none: start it with"
                    + " TestRedis.startClusterWithReplicas()");
        }
    }

    /** Waits until every running node agrees that node {@code master} is a master serving all it should. */
    private List<String> promotionProblems(int master) {
        List<String> problems = new ArrayList<>(clusterProblems(false));
        for (int i = 0; i < nodes.size(); i++) {
            if (!nodes.get(i).isRunning()) {
                continue;
            }
            try (Resp resp = connect(i)) {
                boolean seesMaster = nodesLines(resp).stream()
                        .anyMatch(f -> f[0].equals(ids.get(master)) && f[2].contains("master") && f.length > 8);
                if (!seesMaster) {
                    problems.add("node " + i + " does not see node " + master + " as a master with slots yet");
                }
            } catch (IOException e) {
                problems.add("node " + i + ": " + e.getMessage());
            }
        }
        return problems;
    }

    @Override
    public List<RedisServer> masters() {
        return masterViews;
    }

    @Override
    public List<RedisServer> replicas() {
        return replicaViews;
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
        masterViews.get(masterIndex).kill();
    }

    @Override
    public void restart(int masterIndex) {
        masterViews.get(masterIndex).restart();
    }

    private void restartNode(int index) {
        nodes.get(index).restart();
        awaitHealthy("restarting node " + index);
    }

    @Override
    public int shardOf(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IndexOutOfBoundsException("slot must be 0 to 16383, but was " + slot);
        }
        int owner = nodeIndex(ownerId(slot));
        return owner % MASTERS;
    }

    @Override
    public void failover(int shard) {
        ensureOpen("failover(" + shard + ")");
        requireReplicas("failover(" + shard + ")");
        int replica = replicaOf(shard);
        long deadline = System.nanoTime() + HEALTHY_TIMEOUT.toNanos();
        // A master refuses to vote for a replica of the same master again within 2 x node timeout of its last
        // vote, and Redis drops a manual failover that got no votes after 5 s: so ask again until it is taken.
        while (true) {
            try (Resp resp = connect(replica)) {
                resp.call("CLUSTER", "FAILOVER");
            } catch (IOException e) {
                throw new IllegalStateException("CLUSTER FAILOVER on node " + replica + " of " + name + " failed: "
                        + e.getMessage(), e);
            }
            long retryAt = System.nanoTime() + MANUAL_FAILOVER_RETRY.toNanos();
            while (!promotionProblems(replica).isEmpty() && System.nanoTime() - retryAt < 0) {
                ManagedRedisServer.sleep(Duration.ofMillis(50));
            }
            if (promotionProblems(replica).isEmpty() || System.nanoTime() - deadline >= 0) {
                break;
            }
        }
        await("a manual failover to node " + replica, () -> {
            List<String> problems = new ArrayList<>(promotionProblems(replica));
            problems.addAll(clusterProblems(true)); // the old master follows the new one, in sync
            return problems;
        });
    }

    @Override
    public RedisServer killMasterAndAwaitPromotion(int shard) {
        return killMasterAndAwaitPromotion(shard, () -> { });
    }

    @Override
    public RedisServer killMasterAndAwaitPromotion(int shard, Runnable whileDown) {
        ensureOpen("killMasterAndAwaitPromotion(" + shard + ")");
        requireReplicas("killMasterAndAwaitPromotion(" + shard + ")");
        int master = masterOf(shard);
        int replica = replicaOf(shard);
        nodes.get(master).kill();
        whileDown.run();
        await("killing node " + master, () -> promotionProblems(replica));
        return master < MASTERS ? masterViews.get(master) : replicaViews.get(master - MASTERS);
    }

    @Override
    public void migrateSlot(int slot, int toShard) {
        ensureOpen("migrateSlot(" + slot + ", " + toShard + ")");
        int source = nodeIndex(ownerId(slot));
        int target = masterOf(toShard);
        if (source == target) {
            return;
        }
        String slotText = Integer.toString(slot);
        try (Resp from = connect(source); Resp to = connect(target)) {
            to.call("CLUSTER", "SETSLOT", slotText, "IMPORTING", ids.get(source));
            from.call("CLUSTER", "SETSLOT", slotText, "MIGRATING", ids.get(target));
            while (true) {
                Object keys = from.call("CLUSTER", "GETKEYSINSLOT", slotText, Integer.toString(MIGRATE_BATCH));
                if (!(keys instanceof List<?> list) || list.isEmpty()) {
                    break;
                }
                List<String> migrate = new ArrayList<>(Arrays.asList("MIGRATE", ManagedRedisServer.HOST,
                        Integer.toString(nodes.get(target).port()), "", "0", MIGRATE_TIMEOUT_MS, "REPLACE", "KEYS"));
                list.forEach(key -> migrate.add((String) key));
                from.call(migrate.toArray(String[]::new));
            }
            // The new owner first, then the old one, then everyone else (as redis-cli does).
            to.call("CLUSTER", "SETSLOT", slotText, "NODE", ids.get(target));
            from.call("CLUSTER", "SETSLOT", slotText, "NODE", ids.get(target));
            for (int i = 0; i < nodes.size(); i++) {
                if (i != source && i != target && nodes.get(i).isRunning() && callsItselfMaster(i)) {
                    try (Resp other = connect(i)) {
                        other.call("CLUSTER", "SETSLOT", slotText, "NODE", ids.get(target));
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot migrate slot " + slot + " from node " + source + " to node "
                    + target + " of " + name + ": " + e.getMessage(), e);
        }
        await("migrating slot " + slot, () -> {
            List<String> problems = new ArrayList<>(clusterProblems(false));
            for (int i = 0; i < nodes.size(); i++) {
                if (nodes.get(i).isRunning()) {
                    String owner = ownerIdAsSeenBy(i, slot);
                    if (!ids.get(target).equals(owner)) {
                        problems.add("node " + i + " sees slot " + slot + " at " + owner);
                    }
                }
            }
            return problems;
        });
    }

    /** The id of the master owning {@code slot}, as the first running node sees it. */
    private String ownerId(int slot) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).isRunning()) {
                String owner = ownerIdAsSeenBy(i, slot);
                if (owner != null) {
                    return owner;
                }
            }
        }
        throw new IllegalStateException("No running node of " + name + " knows the owner of slot " + slot);
    }

    private String ownerIdAsSeenBy(int index, int slot) {
        try (Resp resp = connect(index)) {
            for (String[] f : nodesLines(resp)) {
                if (!f[2].contains("master") || f[2].contains("fail")) {
                    continue;
                }
                for (int s = 8; s < f.length; s++) {
                    if (f[s].startsWith("[")) {
                        continue; // a migration in progress, not ownership
                    }
                    String[] range = f[s].split("-");
                    int low = Integer.parseInt(range[0]);
                    int high = range.length > 1 ? Integer.parseInt(range[1]) : low;
                    if (slot >= low && slot <= high) {
                        return f[0];
                    }
                }
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    private int nodeIndex(String id) {
        int index = ids.indexOf(id);
        if (index < 0) {
            throw new IllegalStateException("Unknown node id " + id + " in " + name);
        }
        return index;
    }

    private synchronized void ensureOpen(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + " on a closed " + name);
        }
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

    /** A node as a {@link RedisServer}: kill/restart go through the cluster; close is the cluster's job. */
    private final class NodeView extends ForwardingRedisServer {
        private final int index;

        NodeView(int index, ManagedRedisServer node) {
            super(node);
            this.index = index;
        }

        @Override
        public void kill() {
            ensureOpen("kill(" + index + ")");
            nodes.get(index).kill();
        }

        @Override
        public void restart() {
            ensureOpen("restart(" + index + ")");
            restartNode(index);
        }

        @Override
        public void close() {
            // The cluster owns its nodes.
        }

        @Override
        public String toString() {
            return "node " + index + " of " + LocalRedisCluster.this;
        }
    }
}
