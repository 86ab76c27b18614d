package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.resource.ClientResources;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisCluster;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

/**
 * A fleet of Lodestar clients watching the same services (issue 33, "A thousand clients watching"): {@code --clients}
 * clients spread over {@code --jvms} child JVMs ({@link FleetMember}, one shared set of Lettuce resources and one
 * scheduler each), every client holding the same {@code --services} services with a listener, while this JVM
 * changes instances at a steady rate. Measured in one run, against a raw baseline with the same pacing:
 * <ol>
 *   <li><b>Fan-out.</b> Writes alternate in blocks of {@code --block}: {@code updateMetadata} of one instance of
 *       the next service (Lodestar), then raw {@code SPUBLISH}es of a message of about an event's size to that
 *       service's raw channel, which every JVM also subscribes to with one plain {@code SSUBSCRIBE} connection per
 *       client. One event every {@code --interval-ms} (default 50 ms: 10 Lodestar writes and 10 raw publishes a
 *       second), {@code --warmup} unrecorded events of each kind first. Every client's listener records write →
 *       listener (wall clock; the write carries its start time), pooled and per JVM; Redis' {@code INFO cpu} is
 *       read at every block boundary, so CPU per event is split by kind (net of Redis' idle rate, measured for
 *       3 s before).</li>
 *   <li><b>Footprint.</b> Connections per client ({@code CLIENT LIST}, by connection name, pub/sub or not), heap
 *       after GC and threads per client (each JVM before and after opening its clients).</li>
 *   <li><b>Restart.</b> (A private server of the test kit only.) The raw connections are closed, {@code SAVE},
 *       then the server is killed and started again on the same port with the same data, as a restart with
 *       persistence would; once it answers,
 *       the writer changes one instance of service 0. Measured: when every client's view was fresh again (not
 *       stale and service 0 shows the change: each JVM polls every 5 ms), Redis' CPU sampled every 100 ms, and
 *       every command the crowd sent after the restart ({@code INFO commandstats}, which the restart zeroes).</li>
 * </ol>
 * Redis: a private server from the test kit, or {@code LODESTAR_REDIS_URI} (no restart then), or with
 * {@code --cluster} the kit's private 3-master cluster (no replicas). On the cluster the clients and the raw baseline
 * use the cluster URI; services spread over the shards by the bucket of their keys (the raw channels share their
 * service's hash tag), the writer publishes each raw message at the master owning its channel, and every figure
 * read from Redis is read per master: connections, CPU per event, and the restart, which restarts each master in
 * turn as a rolling restart with persistence does ({@code SAVE}, kill, start with its data, the kit waiting until the
 * cluster is healthy), then changes a service of that master's shard and measures as above, every master's
 * {@code INFO commandstats} and CPU included. Every wait is bounded;
 * the child JVMs and the servers are stopped on exit, also after a failure. Run by {@code jmh/fleet.sh}; writes
 * {@code summary.md} (also printed) and {@code fleet.json} (every setting and figure, histograms as percentiles) to
 * {@code --out}.
 */
public final class FleetHarness {
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};
    private static final long CPU_SAMPLE_MS = 100;

    private final int clients;
    private final int jvms;
    private final int services;
    private final int writes;
    private final int warmup;
    private final int block;
    private final long intervalMs;
    private final long freshTimeoutMs;
    private final boolean restart;
    private final List<String> childJvmArgs;
    private final Path out;
    private final Map<String, Object> settings = new LinkedHashMap<>();
    private final Map<String, Object> results = new LinkedHashMap<>();
    private final StringBuilder summary = new StringBuilder();
    private final List<Child> children = new ArrayList<>();
    private final String namespace = "fleet-"
            + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);

    private final boolean clusterMode;
    /** The masters the harness reads and publishes through: the one server, or the cluster's three. */
    private final List<Node> nodes = new ArrayList<>();
    private RedisServer server;
    private RedisCluster cluster;
    private String uri;
    private ClientResources resources;
    /** The shard (master) of each service's keys and raw channel; all 0 on a standalone server. */
    private int[] shardOfService;
    private LodestarClient writer;

    /** A Redis master the harness reads and publishes through, on a connection of its own. */
    private record Node(String name, RedisServer server, RedisClient client,
                        StatefulRedisConnection<String, String> connection) {
        static Node connect(String name, RedisServer server, String uri, ClientResources resources) {
            RedisClient client = RedisClient.create(resources, uri);
            return new Node(name, server, client, client.connect());
        }

        RedisCommands<String, String> sync() {
            return connection.sync();
        }

        /** A fresh connection after a restart: the old one would wait out its own reconnect delay. */
        Node reconnected() {
            connection.close();
            return new Node(name, server, client, client.connect());
        }
    }

    /** One child JVM and the lines it printed. */
    private record Child(int index, int clients, Process process, Writer in, BlockingQueue<String> lines) {
        void send(String line) {
            try {
                in.write(line + "\n");
                in.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("fleet JVM " + index + " is gone", e);
            }
        }

        /** The next line starting with {@code prefix}, within {@code timeoutMs}. */
        String await(String prefix, long timeoutMs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IllegalStateException("fleet JVM " + index + " sent no " + prefix + " within "
                            + timeoutMs + " ms"
                            + (process.isAlive() ? "" : " (it exited: " + process.exitValue() + ")"));
                }
                if (line.startsWith(prefix + " ") || line.equals(prefix)) {
                    return line;
                }
            }
        }
    }

    private FleetHarness(Map<String, String> options) {
        clients = positive(options, "clients", "1000");
        jvms = positive(options, "jvms", "2");
        services = positive(options, "services", "20");
        writes = positive(options, "writes", "400");
        warmup = positive(options, "warmup", "100");
        block = positive(options, "block", "10");
        intervalMs = positive(options, "interval-ms", "50");
        freshTimeoutMs = positive(options, "fresh-timeout-ms", "60000");
        restart = !options.containsKey("no-restart");
        clusterMode = options.containsKey("cluster");
        String jvmArgs = options.getOrDefault("child-jvm-args", "-Xmx1g").trim();
        childJvmArgs = jvmArgs.isEmpty() ? List.of() : Arrays.asList(jvmArgs.split("\\s+"));
        out = Path.of(options.getOrDefault("out", "jmh/target/fleet"));
        if (jvms > clients) {
            throw new IllegalArgumentException("--jvms must be at most --clients (" + clients + "), but was " + jvms);
        }
        settings.put("cluster", clusterMode);
        settings.put("clients", clients);
        settings.put("jvms", jvms);
        settings.put("services", services);
        settings.put("writesPerKind", writes);
        settings.put("warmupPerKind", warmup);
        settings.put("block", block);
        settings.put("intervalMs", intervalMs);
        settings.put("childJvmArgs", childJvmArgs);
        settings.put("commit", options.getOrDefault("commit", "unknown"));
    }

    private static int positive(Map<String, String> options, String name, String fallback) {
        String value = options.getOrDefault(name, fallback);
        int parsed;
        try {
            parsed = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            parsed = 0;
        }
        if (parsed <= 0) {
            throw new IllegalArgumentException("--" + name + " must be a positive integer, but was " + value);
        }
        return parsed;
    }

    /**
     * @param args {@code --clients N --jvms N --services N --writes N --warmup N --block N --interval-ms N
     *             --fresh-timeout-ms N --no-restart --cluster --child-jvm-args "..." --out DIR --commit ID}
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = Fixtures.options(args, Set.of("no-restart", "cluster"));
        FleetHarness harness = new FleetHarness(options);
        Thread cleanUp = new Thread(harness::tearDown, "fleet-teardown");
        Runtime.getRuntime().addShutdownHook(cleanUp); // also on Ctrl-C or a failure
        int status = 0;
        try {
            harness.run();
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
            harness.writeFailed(e);
        }
        System.exit(status); // runs the hook: children and Redis go
    }

    private void run() throws Exception {
        settings.put("started", Instant.now().toString());
        settings.put("loadavgStart", load());
        startRedis();
        setUp();
        footprint();
        fanOut();
        if (restart && (server != null || cluster != null)) {
            restart();
        } else {
            summary.append("Restart: skipped (").append(server == null ? "LODESTAR_REDIS_URI is not restartable"
                    : "--no-restart").append(").\n\n");
        }
        settings.put("finished", Instant.now().toString());
        settings.put("loadavgEnd", load());
        write();
    }

    // ---------------------------------------------------------------- set-up

    private void startRedis() {
        resources = FleetMember.resources();
        String given = System.getProperty(BenchRedis.URI_VARIABLE, System.getenv(BenchRedis.URI_VARIABLE));
        shardOfService = new int[services];
        if (clusterMode) {
            cluster = TestRedis.startCluster();
            uri = cluster.uri();
            settings.put("redis", "private 3-master cluster from the test kit (no replicas)");
            for (int n = 0; n < cluster.masters().size(); n++) {
                RedisServer master = cluster.masters().get(n);
                nodes.add(Node.connect("node " + n, master, master.uri(), resources));
            }
            int[] perShard = new int[nodes.size()];
            for (int s = 0; s < services; s++) {
                shardOfService[s] = cluster.shardOf(SlotHash.getSlot(FleetMember.rawChannel(namespace, s)));
                perShard[shardOfService[s]]++;
            }
            settings.put("shardOfService", Arrays.stream(shardOfService).boxed().toList());
            settings.put("servicesPerShard", Arrays.stream(perShard).boxed().toList());
        } else if (given != null && !given.isBlank()) {
            uri = given;
            settings.put("redis", "LODESTAR_REDIS_URI");
            nodes.add(Node.connect("redis", null, uri, resources));
        } else {
            server = TestRedis.startStandalone();
            uri = server.uri();
            settings.put("redis", "private server from the test kit");
            nodes.add(Node.connect("redis", server, uri, resources));
        }
        settings.put("redisVersion", ScaleRedis.infoField(nodes.get(0).sync().info("server"), "redis_version"));
    }

    private void setUp() throws Exception {
        writer = RedisLodestar.create(LodestarOptions.builder(uri).namespace(namespace).clientName("fleet-writer")
                .build());
        for (int s = 0; s < services; s++) {
            for (int i = 0; i < 2; i++) {
                writer.registry().register(Fixtures.instance(FleetMember.service(s), i));
            }
            // the raw channel's shard is the service's only while the harness lays out tags as docs/redis.md does
            String instances = "lodestar:" + FleetMember.serviceTag(namespace, FleetMember.service(s)) + ":"
                    + FleetMember.service(s) + ":instances";
            if (nodes.get(shardOfService[s]).sync().exists(instances) != 1) {
                throw new IllegalStateException(instances + " is not on " + nodes.get(shardOfService[s]).name()
                        + ": the key layout is no longer the one FleetMember.serviceTag assumes");
            }
        }
        long startupMs = 60_000 + 300L * clients;
        for (int j = 0; j < jvms; j++) {
            int share = clients / jvms + (j < clients % jvms ? 1 : 0);
            Process process = Fixtures.childJvm(childJvmArgs, FleetMember.class, uri, namespace, Integer.toString(j),
                    Integer.toString(share), Integer.toString(services), Integer.toString(warmup));
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // the child is gone; await() says so
                }
            }, "fleet-jvm-" + j + "-reader");
            reader.setDaemon(true);
            reader.start();
            children.add(new Child(j, share, process,
                    new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), lines));
        }
        System.err.printf("Started %d JVMs with %d clients; waiting for them to connect (at most %d s)%n", jvms,
                clients, startupMs / 1000);
        List<Map<String, Object>> perJvm = new ArrayList<>();
        for (Child child : children) {
            String threads = child.await("THREADS", startupMs).substring("THREADS ".length());
            long[] r = Arrays.stream(child.await("READY", startupMs).split(" ")).skip(1)
                    .mapToLong(Long::parseLong).toArray();
            Map<String, Object> jvm = new LinkedHashMap<>();
            jvm.put("clients", child.clients());
            jvm.put("heapBaseBytes", r[0]);
            jvm.put("threadsBase", r[1]);
            jvm.put("heapWithLodestarBytes", r[2]);
            jvm.put("threadsWithLodestar", r[3]);
            jvm.put("heapWithRawBytes", r[4]);
            jvm.put("threadsWithRaw", r[5]);
            jvm.put("lodestarHeapPerClientBytes", (double) (r[2] - r[0]) / child.clients());
            jvm.put("lodestarThreads", r[3] - r[1]);
            jvm.put("rawHeapPerConnectionBytes", (double) (r[4] - r[2]) / child.clients());
            jvm.put("rawThreads", r[5] - r[3]);
            Map<String, Object> names = new LinkedHashMap<>();
            for (String kv : threads.split(";")) {
                names.put(kv.substring(0, kv.lastIndexOf('=')), Long.parseLong(kv.substring(kv.lastIndexOf('=') + 1)));
            }
            jvm.put("threadsByNameWithLodestar", names);
            perJvm.add(jvm);
        }
        results.put("jvms", perJvm);
    }

    // ---------------------------------------------------------------- footprint

    private void footprint() {
        Map<String, int[]> byName = new TreeMap<>(); // name -> {connections, pub/sub}, over every master
        List<Map<String, Object>> perNode = new ArrayList<>();
        long connectedClients = 0;
        for (Node node : nodes) {
            Map<String, int[]> here = new TreeMap<>();
            Map<String, Integer> lodestarByCommand = new TreeMap<>(); // which connection is which: its last command
            for (String line : node.sync().clientList().split("\n")) {
                String name = field(line, "name");
                String flags = field(line, "flags");
                boolean pubSub = flags != null && flags.contains("P");
                if (FleetMember.CLIENT_NAME.equals(name)) {
                    lodestarByCommand.merge((pubSub ? "pubsub " : "") + field(line, "cmd"), 1, Integer::sum);
                }
                for (Map<String, int[]> counted : List.of(byName, here)) {
                    int[] counts = counted.computeIfAbsent(name == null || name.isEmpty() ? "(none)" : name,
                            k -> new int[2]);
                    counts[0]++;
                    counts[1] += pubSub ? 1 : 0;
                }
            }
            long connected = Long.parseLong(ScaleRedis.infoField(node.sync().info("clients"), "connected_clients"));
            connectedClients += connected;
            int[] lodestar = here.getOrDefault(FleetMember.CLIENT_NAME, new int[2]);
            Map<String, Object> counts = new LinkedHashMap<>();
            counts.put("node", node.name());
            counts.put("connectedClients", connected);
            counts.put("lodestarConnections", lodestar[0]);
            counts.put("lodestarPubSubConnections", lodestar[1]);
            counts.put("rawConnections", here.getOrDefault(FleetMember.RAW_NAME, new int[2])[0]);
            Map<String, Object> names = new LinkedHashMap<>();
            here.forEach((name, c) -> names.put(name, c[0]));
            counts.put("connectionsByName", names);
            counts.put("lodestarConnectionsByLastCommand", new LinkedHashMap<>(lodestarByCommand));
            perNode.add(counts);
        }
        int[] lodestar = byName.getOrDefault(FleetMember.CLIENT_NAME, new int[2]);
        int[] raw = byName.getOrDefault(FleetMember.RAW_NAME, new int[2]);
        Map<String, Object> footprint = new LinkedHashMap<>();
        footprint.put("connectedClients", connectedClients);
        footprint.put("lodestarConnections", lodestar[0]);
        footprint.put("lodestarPubSubConnections", lodestar[1]);
        footprint.put("rawConnections", raw[0]);
        footprint.put("connectionsPerClient", (double) lodestar[0] / clients);
        footprint.put("pubSubConnectionsPerClient", (double) lodestar[1] / clients);
        Map<String, Object> names = new LinkedHashMap<>();
        byName.forEach((name, counts) -> names.put(name, counts[0]));
        footprint.put("connectionsByName", names);
        if (cluster != null) {
            footprint.put("perNode", perNode);
        }
        results.put("footprint", footprint);

        summary.append(String.format(Locale.ROOT, "### Fleet: %d clients in %d JVMs, %d services each%n%n", clients,
                jvms, services));
        summary.append(String.format(Locale.ROOT, "Connections per client: %.2f (%.2f pub/sub, %.2f command); "
                        + "Redis `connected_clients` %s (%d raw baseline connections).%n%n",
                (double) lodestar[0] / clients, (double) lodestar[1] / clients,
                (double) (lodestar[0] - lodestar[1]) / clients, footprint.get("connectedClients"), raw[0]));
        summary.append("| JVM | Clients | Heap/client KiB (Lodestar) | Threads (Lodestar, all clients) | "
                + "Heap/connection KiB (raw) | Threads (raw) |\n|--:|--:|--:|--:|--:|--:|\n");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> perJvm = (List<Map<String, Object>>) results.get("jvms");
        for (int j = 0; j < perJvm.size(); j++) {
            Map<String, Object> jvm = perJvm.get(j);
            summary.append(String.format(Locale.ROOT, "| %d | %d | %.1f | %d | %.1f | %d |%n", j, jvm.get("clients"),
                    (Double) jvm.get("lodestarHeapPerClientBytes") / 1024, jvm.get("lodestarThreads"),
                    (Double) jvm.get("rawHeapPerConnectionBytes") / 1024, jvm.get("rawThreads")));
        }
        summary.append('\n');
        if (cluster != null) {
            summary.append(String.format(Locale.ROOT, "Per master (services per shard: %s): connections per client "
                    + "and shard.%n%n| Master | Lodestar per client | pub/sub | command | raw per client | "
                    + "`connected_clients` |%n|---|--:|--:|--:|--:|--:|%n", settings.get("servicesPerShard")));
            for (Map<String, Object> node : perNode) {
                int all = (Integer) node.get("lodestarConnections");
                int pubSub = (Integer) node.get("lodestarPubSubConnections");
                summary.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %d |%n",
                        node.get("node"), (double) all / clients, (double) pubSub / clients,
                        (double) (all - pubSub) / clients, (double) (Integer) node.get("rawConnections") / clients,
                        node.get("connectedClients")));
            }
            summary.append('\n');
        }
    }

    // ---------------------------------------------------------------- fan-out

    private void fanOut() throws Exception {
        String padding = "x".repeat(300); // about the size of Lodestar's "updated" event of one instance
        double[][] cpuByNode = new double[2][nodes.size()]; // lodestar, raw: per master, net of the idle rate below
        int[][] eventsByNode = new int[2][nodes.size()]; // measured events of each kind at each master
        // What Redis burns with nobody writing (its cron, the clients' own background reads), subtracted from every
        // block so the per-event figures are the events' own.
        double[] idleBefore = cpuMillis();
        long idleStart = System.nanoTime();
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(3));
        double[] idleAfter = cpuMillis();
        double idleMs = (System.nanoTime() - idleStart) / 1e6;
        double[] idlePerMs = new double[nodes.size()];
        for (int n = 0; n < nodes.size(); n++) {
            idlePerMs[n] = (idleAfter[n] - idleBefore[n]) / idleMs;
        }
        double idleCpuPerMs = Arrays.stream(idlePerMs).sum();
        int[] seq = new int[2];
        int total = warmup + writes;
        System.err.printf("Writing: %d warm-up and %d measured events of each kind, one every %d ms (about %d s)%n",
                warmup, writes, intervalMs, 2L * total * intervalMs / 1000);
        long next = System.nanoTime();
        while (seq[0] < total || seq[1] < total) {
            for (int kind = 0; kind < 2; kind++) {
                boolean measured = seq[kind] >= warmup;
                double[] cpuBefore = measured ? cpuMillis() : null;
                long blockStart = System.nanoTime();
                for (int b = 0; b < block && seq[kind] < total; b++) {
                    LockSupport.parkNanos(next - System.nanoTime());
                    next = Math.max(next + TimeUnit.MILLISECONDS.toNanos(intervalMs), System.nanoTime());
                    int s = seq[kind]++;
                    eventsByNode[kind][shardOfService[s % services]] += measured ? 1 : 0;
                    String service = FleetMember.service(s % services);
                    String stamp = Long.toString(PropagationListener.now());
                    if (kind == 0) {
                        writer.registry().updateMetadata(service, Fixtures.instance(service, 0).instanceId(),
                                Map.of("seq", Integer.toString(s), "t", stamp), Set.of());
                    } else { // at the master owning the channel's slot
                        nodes.get(shardOfService[s % services]).sync().spublish(
                                FleetMember.rawChannel(namespace, s % services), s + " " + stamp + " " + padding);
                    }
                }
                if (measured) {
                    LockSupport.parkNanos(next - System.nanoTime()); // the block's last fan-out is in
                    next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(intervalMs);
                    double[] cpuAfter = cpuMillis();
                    double blockMs = (System.nanoTime() - blockStart) / 1e6;
                    for (int n = 0; n < nodes.size(); n++) {
                        cpuByNode[kind][n] += cpuAfter[n] - cpuBefore[n] - idlePerMs[n] * blockMs;
                    }
                }
            }
        }
        double[] cpuMs = {Arrays.stream(cpuByNode[0]).sum(), Arrays.stream(cpuByNode[1]).sum()};
        Histogram lodestar = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
        Histogram raw = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
        Map<String, Object> perJvm = new LinkedHashMap<>();
        long heardLodestar = 0;
        long heardRaw = 0;
        int minLodestar = Integer.MAX_VALUE;
        int minRaw = Integer.MAX_VALUE;
        long resyncs = 0;
        List<List<long[]>> lodestarEventsPerJvm = new ArrayList<>();
        List<List<long[]>> rawEventsPerJvm = new ArrayList<>();
        for (Child child : children) {
            child.send("REPORT " + writes + " " + writes);
        }
        for (Child child : children) {
            Histogram l = FleetMember.decode(child.await("HIST", 30_000).split(" ")[2]);
            Histogram r = FleetMember.decode(child.await("HIST", 30_000).split(" ")[2]);
            List<long[]> lodestarEvents = eventTimes(child.await("EVENTS", 30_000));
            List<long[]> rawEvents = eventTimes(child.await("EVENTS", 30_000));
            lodestarEventsPerJvm.add(lodestarEvents);
            rawEventsPerJvm.add(rawEvents);
            long[] c = Arrays.stream(child.await("COUNTS", 30_000).split(" ")).skip(1).mapToLong(Long::parseLong)
                    .toArray();
            lodestar.add(l);
            raw.add(r);
            heardLodestar += c[0];
            minLodestar = (int) Math.min(minLodestar, c[1]);
            heardRaw += c[2];
            minRaw = (int) Math.min(minRaw, c[3]);
            resyncs += c[4];
            Map<String, Object> jvm = new LinkedHashMap<>();
            jvm.put("lodestar", percentiles(l));
            jvm.put("raw", percentiles(r));
            jvm.put("lodestarHeard", c[0]);
            jvm.put("lodestarHeardMinPerClient", c[1]);
            jvm.put("rawHeard", c[2]);
            jvm.put("rawHeardMinPerClient", c[3]);
            jvm.put("resyncs", c[4]);
            jvm.put("eventsLodestar", lodestarEvents.stream().map(e -> Arrays.stream(e).boxed().toList()).toList());
            jvm.put("eventsRaw", rawEvents.stream().map(e -> Arrays.stream(e).boxed().toList()).toList());
            perJvm.put("jvm" + child.index(), jvm);
        }
        Map<String, Object> fanOut = new LinkedHashMap<>();
        fanOut.put("lodestar", percentiles(lodestar));
        fanOut.put("raw", percentiles(raw));
        fanOut.put("expectedPerKind", (long) writes * clients);
        fanOut.put("lodestarHeard", heardLodestar);
        fanOut.put("rawHeard", heardRaw);
        fanOut.put("lodestarHeardMinPerClient", minLodestar);
        fanOut.put("rawHeardMinPerClient", minRaw);
        fanOut.put("resyncs", resyncs);
        fanOut.put("redisIdleCpuPercent", idleCpuPerMs * 100);
        fanOut.put("redisCpuMsLodestar", cpuMs[0]);
        fanOut.put("redisCpuMsRaw", cpuMs[1]);
        fanOut.put("redisCpuUsPerEventLodestar", cpuMs[0] * 1000 / writes);
        fanOut.put("redisCpuUsPerEventRaw", cpuMs[1] * 1000 / writes);
        fanOut.put("redisCpuUsPerEventAndClientLodestar", cpuMs[0] * 1000 / writes / clients);
        fanOut.put("redisCpuUsPerEventAndClientRaw", cpuMs[1] * 1000 / writes / clients);
        fanOut.put("p99Ratio", raw.getValueAtPercentile(99) > 0
                ? (double) lodestar.getValueAtPercentile(99) / raw.getValueAtPercentile(99) : null);
        int lodestarBeyondP99 = eventsSlowerThan(lodestarEventsPerJvm, lodestar.getValueAtPercentile(99));
        int rawBeyondP99 = eventsSlowerThan(rawEventsPerJvm, raw.getValueAtPercentile(99));
        fanOut.put("eventsWithAClientBeyondP99Lodestar", lodestarBeyondP99);
        fanOut.put("eventsWithAClientBeyondP99Raw", rawBeyondP99);
        fanOut.put("perJvm", perJvm);
        if (cluster != null) {
            List<Map<String, Object>> perNode = new ArrayList<>();
            for (int n = 0; n < nodes.size(); n++) {
                Map<String, Object> node = new LinkedHashMap<>();
                node.put("node", nodes.get(n).name());
                node.put("redisIdleCpuPercent", idlePerMs[n] * 100);
                node.put("redisCpuUsPerEventLodestar", cpuByNode[0][n] * 1000 / writes);
                node.put("redisCpuUsPerEventRaw", cpuByNode[1][n] * 1000 / writes);
                node.put("eventsLodestar", eventsByNode[0][n]);
                node.put("eventsRaw", eventsByNode[1][n]);
                node.put("redisCpuUsPerOwnEventLodestar", cpuByNode[0][n] * 1000 / Math.max(1, eventsByNode[0][n]));
                node.put("redisCpuUsPerOwnEventRaw", cpuByNode[1][n] * 1000 / Math.max(1, eventsByNode[1][n]));
                perNode.add(node);
            }
            fanOut.put("perNode", perNode);
        }
        results.put("fanOut", fanOut);

        summary.append(String.format(Locale.ROOT, "Fan-out: %d measured events of each kind (after %d warm-up), one "
                + "every %d ms, alternating in blocks of %d; write → every client's listener, µs.%n%n", writes,
                warmup, intervalMs, block));
        summary.append("| Path | Deliveries (expected) | Min per client | p50 | p90 | p99 | p99.9 | Max | "
                + "Redis CPU µs/event | Redis CPU µs/event/client |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        row("Lodestar updateMetadata → listener (pooled)", lodestar, heardLodestar, minLodestar, cpuMs[0]);
        row("raw SPUBLISH → SSUBSCRIBE (pooled)", raw, heardRaw, minRaw, cpuMs[1]);
        for (Child child : children) {
            @SuppressWarnings("unchecked")
            Map<String, Object> jvm = (Map<String, Object>) perJvm.get("jvm" + child.index());
            for (String kind : List.of("lodestar", "raw")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> p = (Map<String, Object>) jvm.get(kind);
                summary.append(String.format(Locale.ROOT, "| %s, JVM %d | %s | %s | %s | %s | %s | %s | %s | | |%n",
                        kind, child.index(), jvm.get(kind + "Heard"), jvm.get(kind + "HeardMinPerClient"),
                        p.get("p50"), p.get("p90"), p.get("p99"), p.get("p99.9"), p.get("max")));
            }
        }
        summary.append(String.format(Locale.ROOT, "%nLodestar p99 / raw p99: %s (goal ≤ 1.5×); listener resyncs "
                + "instead of events: %d. Redis CPU per event is net of its idle rate (%.1f %% of a core, measured "
                + "for 3 s before the writes) and includes the writer's script.%n%n", fanOut.get("p99Ratio") == null
                ? "—" : String.format(Locale.ROOT, "%.2f×", (Double) fanOut.get("p99Ratio")), resyncs,
                idleCpuPerMs * 100));
        summary.append(String.format(Locale.ROOT, "Events of %d that a client (in any JVM) heard later than "
                + "its kind's pooled p99: Lodestar %d, raw %d (`perJvm.*.events*` in fleet.json: each event's write "
                + "time and slowest client per JVM, µs).%n%n",
                writes, lodestarBeyondP99, rawBeyondP99));
        if (cluster != null) {
            summary.append("Redis CPU per master (every event goes to the master of its service's shard): per event "
                    + "of all, and per event of its own shard (the cost of one event at its master).\n\n| Master | "
                    + "Services | Lodestar µs/event | raw µs/event | Lodestar µs/own event | raw µs/own event | "
                    + "Idle % of a core |\n|---|--:|--:|--:|--:|--:|--:|\n");
            @SuppressWarnings("unchecked")
            List<Integer> perShard = (List<Integer>) settings.get("servicesPerShard");
            for (int n = 0; n < nodes.size(); n++) {
                summary.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f |%n",
                        nodes.get(n).name(), perShard.get(n), cpuByNode[0][n] * 1000 / writes,
                        cpuByNode[1][n] * 1000 / writes, cpuByNode[0][n] * 1000 / Math.max(1, eventsByNode[0][n]),
                        cpuByNode[1][n] * 1000 / Math.max(1, eventsByNode[1][n]), idlePerMs[n] * 100));
            }
            summary.append('\n');
        }
    }

    private void row(String name, Histogram h, long heard, int min, double cpuMs) {
        summary.append(String.format(Locale.ROOT, "| %s | %d (%d) | %d (%d) | %d | %d | %d | %d | %d | %.1f | %.3f |%n",
                name, heard, (long) writes * clients, min, writes, h.getValueAtPercentile(50),
                h.getValueAtPercentile(90), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
                h.getMaxValue(), cpuMs * 1000 / writes, cpuMs * 1000 / writes / clients));
    }

    /** The {@code EVENTS} line of a child: {@code [seq, written epoch µs, slowest client's µs]} per event. */
    private static List<long[]> eventTimes(String line) {
        String list = line.split(" ")[2];
        return list.equals("-") ? List.of() : Arrays.stream(list.split(","))
                .map(event -> Arrays.stream(event.split(":")).mapToLong(Long::parseLong).toArray()).toList();
    }

    /** Events (by sequence number) whose slowest client in any JVM took longer than {@code micros}. */
    private static int eventsSlowerThan(List<List<long[]>> perJvm, long micros) {
        return (int) perJvm.stream().flatMap(List::stream).filter(event -> event[2] > micros)
                .mapToLong(event -> event[0]).distinct().count();
    }

    private static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("unit", "us");
        p.put("count", h.getTotalCount());
        p.put("mean", h.getMean());
        for (double percentile : PERCENTILES) {
            p.put("p" + (percentile == Math.rint(percentile) ? Long.toString((long) percentile)
                    : Double.toString(percentile)), h.getValueAtPercentile(percentile));
        }
        p.put("max", h.getMaxValue());
        return p;
    }

    // ---------------------------------------------------------------- restart

    private void restart() throws Exception {
        // Only Lodestar's crowd meets the restart: the raw connections would reconnect on the same I/O threads.
        for (Child child : children) {
            child.send("CLOSERAW");
        }
        for (Child child : children) {
            child.await("RAWCLOSED", 60_000);
        }
        if (cluster == null) {
            Map<String, Object> restarted = restart(0, 0);
            results.put("restart", restarted);
            summary.append(String.format(Locale.ROOT, "Restart (raw connections closed, SAVE, kill, start with the "
                            + "data, the writer changes service 0): Redis answered %.0f ms after the kill; the write "
                            + "went in %.0f ms later. "
                            + "Clients fresh: %d of %d; ms after Redis answered: p50 %s, p99 %s, max %s "
                            + "(goal ≤ 3000). "
                            + "Redis CPU peak %.0f %% of a core (%d ms samples).%n%n",
                    restarted.get("restartMs"), restarted.get("writtenAfterUpMs"), restarted.get("clientsFresh"),
                    clients, restarted.get("freshAfterUpMsP50"), restarted.get("freshAfterUpMsP99"),
                    restarted.get("freshAfterUpMsMax"), restarted.get("redisCpuPeakPercentOfOneCore"),
                    CPU_SAMPLE_MS));
            summary.append("Commands Redis ran after the restart (all clients, this harness' own included):\n\n"
                    + "| Command | Calls | Per client |\n|---|--:|--:|\n");
            @SuppressWarnings("unchecked")
            Map<String, Long> commands = (Map<String, Long>) restarted.get("commandsSinceRestart");
            commands.forEach((name, calls) -> summary.append(String.format(Locale.ROOT, "| %s | %d | %.2f |%n",
                    name, calls, (double) calls / clients)));
            summary.append('\n');
            return;
        }
        Map<String, Object> phases = new LinkedHashMap<>();
        results.put("restart", phases); // filled as the masters restart: a failed run keeps the phases done
        for (int n = 0; n < nodes.size(); n++) {
            int master = n;
            int service = IntStream.range(0, services).filter(s -> shardOfService[s] == master)
                    .findFirst().orElse(0); // the first service of this master's shard (service 0 if it holds none)
            phases.put("node" + n, restart(n, service));
        }
        summary.append("Restart of the cluster, one master after the other (raw connections closed first; per master: "
                + "SAVE, kill, start with its data, the kit waits until the cluster is healthy again; then the writer "
                + "changes a service of that master's shard). Fresh: not stale and the service shows the change; ms "
                + "after the cluster was healthy again (goal ≤ 3000). CPU peak per master, % of a core, "
                + CPU_SAMPLE_MS + " ms samples.\n\n| Master restarted | Service written (its shard) | Healthy after "
                + "kill, ms | Write after, ms | Clients fresh | p50 | p99 | Max | CPU peak per master |\n"
                + "|---|---|--:|--:|--:|--:|--:|--:|---|\n");
        phases.forEach((key, value) -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> phase = (Map<String, Object>) value;
            summary.append(String.format(Locale.ROOT,
                    "| %s | %s (%s) | %.0f | %.0f | %d of %d | %s | %s | %s | %s |%n", phase.get("node"),
                    FleetMember.service((Integer) phase.get("service")),
                    shardOfService[(Integer) phase.get("service")], phase.get("restartMs"),
                    phase.get("writtenAfterUpMs"), phase.get("clientsFresh"), clients,
                    phase.get("freshAfterUpMsP50"), phase.get("freshAfterUpMsP99"), phase.get("freshAfterUpMsMax"),
                    phase.get("redisCpuPeakPercentByNode")));
        });
        summary.append('\n');
        phases.forEach((key, value) -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> phase = (Map<String, Object>) value;
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Long>> byNode = (Map<String, Map<String, Long>>) phase.get("commandsByNode");
            Set<String> names = new TreeSet<>();
            byNode.values().forEach(commands -> names.addAll(commands.keySet()));
            summary.append("Commands per client from the restart of ").append(phase.get("node"))
                    .append(" until every client was fresh, per master (the restarted one since its start; this "
                            + "harness' own included):\n\n| Command |");
            byNode.keySet().forEach(node -> summary.append(' ').append(node).append(" |"));
            summary.append("\n|---|").append("--:|".repeat(byNode.size())).append('\n');
            for (String name : names) {
                summary.append("| ").append(name).append(" |");
                byNode.values().forEach(commands -> summary.append(String.format(Locale.ROOT, " %.2f |",
                        (double) commands.getOrDefault(name, 0L) / clients)));
                summary.append('\n');
            }
            summary.append('\n');
        });
    }

    /**
     * Restarts one master with its data ({@code SAVE}, kill, start; a cluster master through the kit, which returns
     * once the cluster is healthy), then changes service {@code service} and waits until every client is fresh.
     * Redis' CPU is sampled on every master meanwhile, and every master's commands counted until the end.
     */
    private Map<String, Object> restart(int index, int service) throws Exception {
        String epoch = Long.toString(System.currentTimeMillis());
        Node node = nodes.get(index);
        List<RedisStats> before = new ArrayList<>();
        for (Node n : nodes) {
            before.add(RedisStats.read(n.sync()));
        }
        node.sync().save(); // the restarted server loads this: a restart with the data kept
        System.err.println("Restarting " + node.name() + " with " + clients + " clients connected");
        long killedAt = PropagationListener.now();
        node.server().restart();
        long upAt = PropagationListener.now();
        nodes.set(index, node.reconnected());
        before.set(index, new RedisStats(Map.of(), 0)); // the restart zeroed its statistics
        AtomicBoolean sampling = new AtomicBoolean(true);
        List<List<List<Double>>> samples = new ArrayList<>(); // per master: {ms since up, % of one core used}
        List<StatefulRedisConnection<String, String>> samplers = new ArrayList<>();
        for (Node n : nodes) {
            samples.add(new ArrayList<>());
            samplers.add(n.client().connect());
        }
        Thread cpuSampler = new Thread(() -> {
            double[] last = new double[samplers.size()];
            for (int n = 0; n < last.length; n++) {
                last[n] = cpuMillis(samplers.get(n).sync());
            }
            long lastAt = System.nanoTime();
            while (sampling.get()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(CPU_SAMPLE_MS));
                long at = System.nanoTime();
                for (int n = 0; n < last.length; n++) {
                    double now = cpuMillis(samplers.get(n).sync());
                    synchronized (samples) {
                        samples.get(n).add(List.of((PropagationListener.now() - upAt) / 1e6,
                                (now - last[n]) * 1e9 / (at - lastAt) / 10)); // percent of one core
                    }
                    last[n] = now;
                }
                lastAt = at;
            }
        }, "fleet-cpu-sampler");
        cpuSampler.setDaemon(true);
        cpuSampler.start();
        long writtenAt = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String serviceId = FleetMember.service(service);
        while (writtenAt == 0) {
            try {
                writer.registry().updateMetadata(serviceId, Fixtures.instance(serviceId, 0).instanceId(),
                        Map.of("epoch", epoch, "seq", "-1"), Set.of());
                writtenAt = PropagationListener.now();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The writer could not write within 30 s of the restart", e);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
        for (Child child : children) {
            child.send("FRESH " + epoch + " " + upAt + " " + freshTimeoutMs + " " + service);
        }
        List<Long> freshMs = new ArrayList<>();
        long notFresh = 0;
        for (Child child : children) {
            String[] words = child.await("FRESHNESS", freshTimeoutMs + 30_000).split(" ");
            notFresh += Long.parseLong(words[1]);
            for (int i = 2; i < words.length; i++) {
                freshMs.add(Long.parseLong(words[i]));
            }
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2 * CPU_SAMPLE_MS)); // the last interval's CPU
        sampling.set(false);
        cpuSampler.join(5_000);
        samplers.forEach(StatefulRedisConnection::close);
        Map<String, Map<String, Long>> commandsByNode = new LinkedHashMap<>();
        for (int n = 0; n < nodes.size(); n++) {
            RedisStats after = RedisStats.read(nodes.get(n).sync());
            Map<String, Long> commands = new TreeMap<>();
            for (Map.Entry<String, long[]> command : after.commands().entrySet()) {
                long calls = command.getValue()[0]
                        - before.get(n).commands().getOrDefault(command.getKey(), new long[2])[0];
                if (calls > 0) {
                    commands.put(command.getKey(), calls);
                }
            }
            commandsByNode.put(nodes.get(n).name(), commands);
        }
        freshMs.sort(null);
        List<Double> peaks = new ArrayList<>();
        synchronized (samples) {
            for (List<List<Double>> ofNode : samples) {
                peaks.add(ofNode.stream().mapToDouble(s -> s.get(1)).max().orElse(0));
            }
        }
        Map<String, Object> restarted = new LinkedHashMap<>();
        if (cluster != null) {
            restarted.put("node", node.name());
            restarted.put("service", service);
        }
        restarted.put("restartMs", (upAt - killedAt) / 1e6);
        restarted.put("writtenAfterUpMs", (writtenAt - upAt) / 1e6);
        restarted.put("clientsFresh", freshMs.size());
        restarted.put("clientsNotFresh", notFresh);
        restarted.put("freshAfterUpMsP50", at(freshMs, 0.50));
        restarted.put("freshAfterUpMsP99", at(freshMs, 0.99));
        restarted.put("freshAfterUpMsMax", freshMs.isEmpty() ? null : freshMs.get(freshMs.size() - 1));
        restarted.put("redisCpuPeakPercentOfOneCore", peaks.stream().mapToDouble(Double::doubleValue).max()
                .orElse(0));
        if (cluster == null) {
            restarted.put("redisCpuSamples", samples.get(0));
            restarted.put("commandsSinceRestart", commandsByNode.values().iterator().next());
        } else {
            restarted.put("redisCpuPeakPercentByNode", peaks.stream().map(p -> Math.round(p)).toList());
            Map<String, Object> samplesByNode = new LinkedHashMap<>();
            for (int n = 0; n < nodes.size(); n++) {
                samplesByNode.put(nodes.get(n).name(), samples.get(n));
            }
            restarted.put("redisCpuSamplesByNode", samplesByNode);
            restarted.put("commandsByNode", commandsByNode);
        }
        return restarted;
    }

    private static Long at(List<Long> sorted, double quantile) {
        return sorted.isEmpty() ? null : sorted.get((int) Math.min(sorted.size() - 1,
                Math.ceil(quantile * sorted.size()) - 1));
    }

    // ---------------------------------------------------------------- results and tear-down

    private void write() throws IOException {
        settings.put("machine", Runtime.getRuntime().availableProcessors() + " CPUs, "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        settings.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("harness", FleetHarness.class.getName());
        all.put("settings", settings);
        all.putAll(results);
        Files.createDirectories(out);
        Files.writeString(out.resolve("fleet.json"), JsonOut.json(all, "") + "\n");
        String text = summary + String.format(Locale.ROOT, "Run %s – %s, commit %s, %s, load average %s → %s.%n",
                settings.get("started"), settings.get("finished"), settings.get("commit"), settings.get("machine"),
                settings.get("loadavgStart"), settings.get("loadavgEnd"));
        Files.writeString(out.resolve("summary.md"), text);
        System.out.println(text);
        System.err.println("Results: " + out.toAbsolutePath());
    }

    /** What a failed run measured before it failed, in fleet.json (the summary holds the finished sections). */
    private void writeFailed(Exception failure) {
        settings.put("failed", failure.toString());
        settings.put("finished", Instant.now().toString());
        settings.put("loadavgEnd", load());
        summary.append("**The run failed**: ").append(failure).append("\n\n");
        try {
            write();
        } catch (IOException | RuntimeException e) {
            System.err.println("Cannot write the results of the failed run: " + e);
        }
    }

    private synchronized void tearDown() {
        for (Child child : children) {
            try {
                child.in().close(); // end of input: the child closes its clients and exits
            } catch (IOException e) {
                // already gone
            }
        }
        for (Child child : children) {
            try {
                // closing a cluster client takes longer than a standalone one: 15 s and 0.1 s per client
                if (!child.process().waitFor(15_000 + 100L * child.clients(), TimeUnit.MILLISECONDS)) {
                    System.err.println("fleet JVM " + child.index() + " did not exit in time: killing it");
                    child.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS); // gone before Redis goes
                }
            } catch (InterruptedException e) {
                child.process().destroyForcibly();
            }
        }
        children.clear();
        if (writer != null) {
            writer.close();
            writer = null;
        }
        for (Node node : nodes) {
            node.client().shutdown();
        }
        nodes.clear();
        if (resources != null) {
            resources.shutdown();
            resources = null;
        }
        if (server != null) {
            server.close();
            server = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    /** Every master's used CPU (ms), in the order of {@link #nodes}. */
    private double[] cpuMillis() {
        double[] ms = new double[nodes.size()];
        for (int n = 0; n < nodes.size(); n++) {
            ms[n] = cpuMillis(nodes.get(n).sync());
        }
        return ms;
    }

    private static double cpuMillis(RedisCommands<String, String> redis) {
        String cpu = redis.info("cpu");
        return (Double.parseDouble(ScaleRedis.infoField(cpu, "used_cpu_user"))
                + Double.parseDouble(ScaleRedis.infoField(cpu, "used_cpu_sys"))) * 1000;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
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
