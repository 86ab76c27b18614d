package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.model.ServiceInstance;
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
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * Lodestar at scale (issue 17, "Scale"): one namespace of {@code --services} services of {@code --instances}
 * ephemeral instances each (default 10,000 × 10 = 100,000) on one standalone Redis (a private server of the test
 * kit, or {@code LODESTAR_REDIS_URI}), held by a writer client that renews them, and a viewer client holding every
 * service. Not a JMH benchmark: each figure is one timed event at size, measured once. Only the public API is used,
 * plus raw Lettuce for {@code INFO} and {@code CLIENT KILL}.
 *
 * <ol>
 *   <li>{@code register}: the writer registers everything through {@code registry().async().register}, at most
 *       {@code --concurrency} (256) calls in flight;</li>
 *   <li>{@code preload}: a fresh viewer's {@code discovery().preload(all service ids)}, until the stage completes;
 *       heap used (after {@code System.gc()}) before and after it, divided by the instances held: approximate (the
 *       writer's renewals allocate beside it);</li>
 *   <li>{@code oneByOne}: a second fresh client's {@code getInstances} of every service, one after the other
 *       (closed afterwards);</li>
 *   <li>{@code idle}: commands Redis processed in a {@code --idle-seconds} (30) window with nothing expiring, the
 *       writer renewing and the viewer holding all: {@code total_commands_processed} (counts the commands scripts
 *       run, too) and the top-level calls of {@code INFO commandstats}, by command;</li>
 *   <li>{@code resync} (last: a client that lost its connection notes an outage marker, which holds back expiry for
 *       10 s + the TTL): every connection of the viewer (PubSub and normal, found by client name in
 *       {@code CLIENT LIST}) killed; the time until {@code discovery().status()} is not stale and its
 *       {@code lastSyncAt} is after the kill;</li>
 *   <li>{@code expiry}: a separate client registers {@code --expiry-instances} (3,000) instances of one more service
 *       with a TTL of {@code --expiry-ttl-ms} and is closed without deregistering
 *       ({@code deregisterOnClose(false)}): the time from its close until the viewer's view of that service is
 *       empty. Once with the default sweep interval (every client at 5 s), once with a client sweeping every
 *       {@code --fast-sweep-ms} (1 s) beside them (it views the service; the others keep 5 s, so which client wins
 *       the sweep lock in an interval is not fixed).</li>
 * </ol>
 * {@code --sweep-ms} sets the sweep interval of every client (default 5 s; the extra fast sweeper runs only when
 * {@code --fast-sweep-ms} is shorter, 0 skips it); {@code --persistent true} registers persistent instances, so
 * the idle window shows the background load without renewals. Every wait is bounded ({@code --timeout-seconds}, 120). Prints a Markdown summary on stdout and writes the figures
 * to {@code --out} (default {@code jmh/target/scale.json}). Run from the repository root: {@code jmh/scale.sh}.
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
    private final Map<String, Object> results = new LinkedHashMap<>();
    private final List<String[]> rows = new ArrayList<>();

    private BenchRedis redis;
    private RedisClient rawClient;
    private StatefulRedisConnection<String, String> rawConnection;
    private RedisCommands<String, String> raw;
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
    }

    /**
     * @param args {@code --services N --instances N --concurrency N --idle-seconds N --expiry-instances N
     *             --expiry-ttl-ms N --fast-sweep-ms N --timeout-seconds N --out FILE}
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("Unexpected argument " + args[i] + "; see the class javadoc");
            }
            options.put(args[i].substring(2), args[++i]);
        }
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
        config.put("jvm", ManagementFactory.getRuntimeMXBean().getVmVersion());
        config.put("cpus", Runtime.getRuntime().availableProcessors());
        config.put("maxHeapMb", Runtime.getRuntime().maxMemory() >> 20);
        results.put("config", config);
        redis = BenchRedis.start();
        try {
            rawClient = RawRedis.client(redis.uri());
            rawConnection = RawRedis.connect(rawClient);
            raw = rawConnection.sync();
            results.put("redis", infoField(raw.info("server"), "redis_version"));
            List<String> ids = new ArrayList<>(services);
            for (int s = 0; s < services; s++) {
                ids.add(String.format("svc-%05d", s));
            }
            LodestarClient writer = open(options(WRITER).deregisterOnClose(false));
            register(writer, ids);
            LodestarClient viewer = preload(ids);
            oneByOne(ids);
            idle();
            // expiry before the resync: a client that lost its connection notes an outage marker, which spares
            // instances for 10 s + their TTL after it (docs/redis.md) and would be measured instead of the sweep
            expiry(viewer, "expiring", null);
            if (!fastSweep.isZero() && fastSweep.compareTo(sweep) < 0) {
                expiry(viewer, "expiring-fast", fastSweep);
            }
            resync(viewer);
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
            if (rawConnection != null) {
                rawConnection.close();
            }
            if (rawClient != null) {
                rawClient.shutdown();
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
        long nanos = registerAll(writer, all);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("instances", all.size());
        r.put("ms", ms(nanos));
        r.put("perSecond", all.size() / (nanos / 1e9));
        results.put("register", r);
        row("register all (writer, async, " + concurrency + " in flight)", fmtMs(nanos)
                + String.format(Locale.ROOT, " (%,.0f/s)", all.size() / (nanos / 1e9)), "—");
    }

    private LodestarClient preload(List<String> ids) throws Exception {
        long before = usedHeap();
        LodestarClient viewer = open(options(VIEWER));
        System.err.printf("Preloading %d services into a fresh viewer%n", ids.size());
        long start = System.nanoTime();
        viewer.discovery().preload(ids).toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
        long nanos = System.nanoTime() - start;
        long held = viewer.discovery().heldSnapshots().values().stream().mapToLong(s -> s.instances().size()).sum();
        Fixtures.check(held == (long) services * instancesPerService, "the viewer to hold every instance, held "
                + held);
        long after = usedHeap();
        double perInstance = (after - before) / (double) held;
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("services", ids.size());
        p.put("ms", ms(nanos));
        p.put("instancesHeld", held);
        results.put("preload", p);
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("usedHeapBeforeBytes", before);
        h.put("usedHeapAfterBytes", after);
        h.put("bytesPerInstance", perInstance);
        h.put("note", "approximate: used heap after System.gc() before the viewer was created and after its "
                + "preload, divided by the instances it holds; includes its connections and per-service state");
        results.put("heap", h);
        row("preload of " + String.format("%,d", ids.size()) + " services (fresh viewer)", fmtMs(nanos), "≤ 1 s");
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
        Map<String, Long> statsBefore = commandCalls();
        long totalBefore = Long.parseLong(infoField(raw.info("stats"), "total_commands_processed"));
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        long totalAfter = Long.parseLong(infoField(raw.info("stats"), "total_commands_processed"));
        long nanos = System.nanoTime() - start;
        Map<String, Long> statsAfter = commandCalls();
        double seconds = nanos / 1e9;
        Map<String, Object> byCommand = new LinkedHashMap<>();
        statsAfter.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - statsBefore.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> byCommand.put(e.getKey(), e.getValue() / seconds));
        Map<String, Object> i = new LinkedHashMap<>();
        i.put("seconds", seconds);
        i.put("totalCommandsPerSecond", (totalAfter - totalBefore) / seconds);
        i.put("callsPerSecondByCommand", byCommand);
        i.put("note", "total_commands_processed counts commands run inside scripts too; commandstats counts every "
                + "command by name (EVALSHA at top level, and the commands scripts call); the harness's own INFO "
                + "calls are included (4 in the window)");
        i.put("expectedRenewalsPerSecond", services * instancesPerService * 3.0
                / ServiceInstance.builder("x", "x").host("h").port(1).build().ttl().toSeconds());
        results.put("idle", i);
        row("idle load, writer " + (persistent ? "(persistent instances, no renewals)" : "renewing")
                + " + viewer holding all (total_commands_processed)",
                String.format(Locale.ROOT, "%,.0f commands/s", (totalAfter - totalBefore) / seconds),
                "≤ 100 commands/s (10,000 quiet services)");
        row("idle: EVALSHA calls (top level)", String.format(Locale.ROOT, "%,.0f /s",
                (Double) byCommand.getOrDefault("evalsha", 0.0)), "—");
    }

    private void resync(LodestarClient viewer) {
        Fixtures.check(!viewer.discovery().status().stale(), "a fresh viewer before the kill");
        List<String> killed = new ArrayList<>();
        Instant killedAt = Instant.now();
        long start = System.nanoTime();
        for (String line : raw.clientList().split("\n")) {
            String name = field(line, "name");
            if (name != null && name.startsWith(VIEWER)) {
                String id = field(line, "id");
                raw.clientKill(io.lettuce.core.KillArgs.Builder.id(Long.parseLong(id)));
                killed.add(name + " (" + field(line, "flags") + ")");
            }
        }
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
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("killed", killed);
        r.put("staleSeenAfterMs", staleAt.get() == null ? null : ms(staleAt.get()));
        r.put("freshAgainAfterMs", ms(nanos));
        r.put("lastSyncAt", String.valueOf(viewer.discovery().status().lastSyncAt()));
        r.put("note", "fresh = status() not stale and its lastSyncAt after the kill; polled every ms");
        results.put("resync", r);
        row("resync after CLIENT KILL of the viewer's connections (fresh again)", fmtMs(nanos), "≤ 0.5 s");
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

    private Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : raw.info("commandstats").split("\r?\n")) {
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

    private static String infoField(String info, String key) {
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
                + "Redis %s standalone%n%n", services, instancesPerService, (long) services * instancesPerService,
                results.get("redis")));
        s.append("| Measured | Result | Goal (issue 17) |\n|---|---|---|\n");
        for (String[] r : rows) {
            s.append("| ").append(r[0]).append(" | ").append(r[1]).append(" | ").append(r[2]).append(" |\n");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> byCommand = (Map<String, Object>) ((Map<String, Object>) results.get("idle"))
                .get("callsPerSecondByCommand");
        s.append("\nIdle calls/s by command (INFO commandstats): ").append(byCommand.entrySet().stream()
                .map(e -> e.getKey() + " " + String.format(Locale.ROOT, "%,.1f", (Double) e.getValue()))
                .collect(Collectors.joining(", "))).append('\n');
        return s.toString();
    }
}
