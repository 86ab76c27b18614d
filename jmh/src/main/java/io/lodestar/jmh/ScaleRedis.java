package io.lodestar.jmh;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lodestar.test.RedisCluster;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Redis of the scale harness ({@link ScaleBenchmark}) and a raw Lettuce connection to each of its masters, for
 * {@code INFO} and {@code CLIENT KILL}: one standalone server, or the masters of a cluster as {@code CLUSTER NODES}
 * lists them (parsed by Lettuce's {@link ClusterPartitionParser}), in slot order. The server is a private one
 * started by the test kit ({@link TestRedis#startStandalone()}, {@link TestRedis#startCluster()}: three masters),
 * stopped by {@link #close()}, or the one {@value BenchRedis#URI_VARIABLE} names (a {@code redis://} URI, or
 * {@code redis-cluster://h1:p1,h2:p2} in cluster mode), left running.
 */
final class ScaleRedis implements AutoCloseable {

    /** One master and a raw connection to it. */
    record Master(String name, String address, String slots, RedisClient client,
                  StatefulRedisConnection<String, String> connection) {
        RedisCommands<String, String> sync() {
            return connection.sync();
        }
    }

    /** What one master had counted at one moment: {@code total_commands_processed} and the calls by command. */
    record Counters(long totalCommands, Map<String, Long> calls) {
        /** Calls of {@code command} between {@code earlier} and this. */
        long callsSince(Counters earlier, String command) {
            return calls.getOrDefault(command, 0L) - earlier.calls.getOrDefault(command, 0L);
        }
    }

    private final AutoCloseable server;
    private final String uri;
    private final boolean cluster;
    private final String namespace;
    private final List<Master> masters = new ArrayList<>();

    private ScaleRedis(AutoCloseable server, String uri, boolean cluster) {
        this.server = server;
        this.uri = uri;
        this.cluster = cluster;
        this.namespace = "scale-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    /**
     * @param cluster a cluster (of the test kit, or given by a {@code redis-cluster://} URI) instead of a standalone
     *                server
     * @return the connected Redis
     * @throws IllegalArgumentException if the given URI's kind is not the mode asked for
     */
    static ScaleRedis start(boolean cluster) {
        String given = System.getProperty(BenchRedis.URI_VARIABLE, System.getenv(BenchRedis.URI_VARIABLE));
        ScaleRedis redis;
        if (given != null && !given.isBlank()) {
            boolean clusterUri = given.toLowerCase(Locale.ROOT).matches("rediss?-cluster://.*");
            if (clusterUri != cluster) {
                throw new IllegalArgumentException(BenchRedis.URI_VARIABLE + " must be a "
                        + (cluster ? "redis-cluster://" : "redis://") + " URI with --cluster " + cluster
                        + ", but was " + given.replaceAll("//[^@/]*@", "//***@"));
            }
            redis = new ScaleRedis(null, given, cluster);
        } else if (cluster) {
            RedisCluster started = TestRedis.startCluster();
            redis = new ScaleRedis(started, started.uri(), true);
        } else {
            RedisServer started = TestRedis.startStandalone();
            redis = new ScaleRedis(started, started.uri(), false);
        }
        try {
            redis.connectMasters();
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
        return redis;
    }

    private void connectMasters() {
        if (!cluster) {
            RedisURI parsed = RedisURI.create(uri);
            RedisClient client = RawRedis.client(parsed);
            masters.add(new Master("standalone", parsed.getHost() + ":" + parsed.getPort(), "all", client,
                    RawRedis.connect(client)));
            return;
        }
        RedisURI seed = clusterSeed(uri);
        RedisClient seedClient = RawRedis.client(seed);
        List<RedisClusterNode> nodes;
        try (StatefulRedisConnection<String, String> connection = RawRedis.connect(seedClient)) {
            nodes = ClusterPartitionParser.parse(connection.sync().clusterNodes()).getPartitions().stream()
                    .filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty())
                    .sorted(Comparator.comparingInt(n -> n.getSlots().get(0)))
                    .toList();
        } finally {
            seedClient.shutdown();
        }
        for (RedisClusterNode node : nodes) {
            RedisURI nodeUri = RedisURI.builder(seed).withHost(node.getUri().getHost())
                    .withPort(node.getUri().getPort()).build();
            RedisClient client = RawRedis.client(nodeUri);
            masters.add(new Master("master " + masters.size(), node.getUri().getHost() + ":"
                    + node.getUri().getPort(), ranges(node.getSlots()), client, RawRedis.connect(client)));
        }
        if (masters.isEmpty()) {
            throw new IllegalStateException("CLUSTER NODES lists no master with slots");
        }
    }

    /** The first node of {@code redis-cluster://[user:pass@]h1:p1,h2:p2[?query]} as a {@code redis://} URI. */
    private static RedisURI clusterSeed(String clusterUri) {
        int schemeEnd = clusterUri.indexOf("://");
        String scheme = clusterUri.substring(0, schemeEnd).toLowerCase(Locale.ROOT).startsWith("rediss")
                ? "rediss" : "redis";
        String rest = clusterUri.substring(schemeEnd + 3);
        int at = rest.lastIndexOf('@');
        String userInfo = at >= 0 ? rest.substring(0, at + 1) : "";
        rest = rest.substring(at + 1);
        int q = rest.indexOf('?');
        String query = q >= 0 ? rest.substring(q) : "";
        String first = (q >= 0 ? rest.substring(0, q) : rest).split(",")[0].trim();
        return RedisURI.create(scheme + "://" + userInfo + first + query);
    }

    /** {@code 0-5460} for the slots 0 to 5460; ranges joined by commas. */
    private static String ranges(List<Integer> slots) {
        List<Integer> sorted = slots.stream().sorted().toList();
        StringBuilder s = new StringBuilder();
        int start = sorted.get(0);
        int previous = start;
        for (int i = 1; i <= sorted.size(); i++) {
            int slot = i < sorted.size() ? sorted.get(i) : Integer.MIN_VALUE;
            if (slot != previous + 1) {
                s.append(s.isEmpty() ? "" : ",").append(start == previous ? start : start + "-" + previous);
                start = slot;
            }
            previous = slot;
        }
        return s.toString();
    }

    /** @return the URI Lodestar's clients are given */
    String uri() {
        return uri;
    }

    /** @return the namespace of the run's clients, e.g. {@code scale-1x2y3z} */
    String namespace() {
        return namespace;
    }

    boolean cluster() {
        return cluster;
    }

    /** @return the masters, in slot order (one for a standalone server) */
    List<Master> masters() {
        return masters;
    }

    /** @return the first master's {@code redis_version} */
    String version() {
        return infoField(masters.get(0).sync().info("server"), "redis_version");
    }

    /** @return each master's counters now, in the order of {@link #masters()} */
    List<Counters> counters() {
        List<Counters> all = new ArrayList<>(masters.size());
        for (Master master : masters) {
            long total = Long.parseLong(infoField(master.sync().info("stats"), "total_commands_processed"));
            all.add(new Counters(total, commandCalls(master.sync())));
        }
        return all;
    }

    /** @return the CPU time (user + system) every master used so far, summed, in ms ({@code INFO cpu}) */
    double cpuMillis() {
        double seconds = 0;
        for (Master master : masters) {
            String cpu = master.sync().info("cpu");
            seconds += Double.parseDouble(infoField(cpu, "used_cpu_user"))
                    + Double.parseDouble(infoField(cpu, "used_cpu_sys"));
        }
        return seconds * 1000;
    }

    /**
     * Kills, on every master, each connection whose client name starts with {@code namePrefix}.
     *
     * @return what was killed, by master: {@code name (flags)}
     */
    Map<String, List<String>> killClients(String namePrefix) {
        Map<String, List<String>> killed = new LinkedHashMap<>();
        for (Master master : masters) {
            List<String> here = new ArrayList<>();
            for (String line : master.sync().clientList().split("\n")) {
                String name = field(line, "name");
                if (name != null && name.startsWith(namePrefix)) {
                    master.sync().clientKill(KillArgs.Builder.id(Long.parseLong(field(line, "id"))));
                    here.add(name + " (" + field(line, "flags") + ")");
                }
            }
            killed.put(master.name(), here);
        }
        return killed;
    }

    @Override
    public void close() {
        for (Master master : masters) {
            try {
                master.connection().close();
            } finally {
                master.client().shutdown();
            }
        }
        masters.clear();
        if (server != null) {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("Stopping Redis failed: " + e);
            }
        }
    }

    private static Map<String, Long> commandCalls(RedisCommands<String, String> redis) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String stats = line.substring(line.indexOf(':') + 1);
                for (String kv : stats.split(",")) {
                    if (kv.startsWith("calls=")) {
                        calls.put(name, Long.parseLong(kv.substring("calls=".length())));
                    }
                }
            }
        }
        return calls;
    }

    static String infoField(String info, String key) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(key + ":")) {
                return line.substring(key.length() + 1).trim();
            }
        }
        throw new IllegalStateException("No " + key + " in INFO");
    }

    /** A {@code key=value} field of one {@code CLIENT LIST} line, or null. */
    private static String field(String line, String key) {
        for (String kv : line.trim().split(" ")) {
            if (kv.startsWith(key + "=")) {
                return kv.substring(key.length() + 1);
            }
        }
        return null;
    }
}
