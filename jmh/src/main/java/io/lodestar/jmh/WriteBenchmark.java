package io.lodestar.jmh;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.ConfigService;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Registration;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.runner.IterationType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Writes through Lodestar's Lua scripts — register, renew, deregister, set metadata, config set — each against its
 * raw baseline: the same script run by a plain Lettuce {@code EVALSHA} with the keys and arguments Lodestar passes
 * ({@link RawRedis}), so a ratio shows what Lodestar's client code costs on top of the Redis work it cannot avoid.
 * Beside them, the fixed floor ({@code floorRegister}, {@link FloorScript}): a minimal register-shaped script of
 * this jar by a plain EVALSHA, which does not change with Lodestar's scripts, so the Redis time of every write can be
 * held to a budget relative to it (issue 27).
 * Throughput in operations per second, summed over the threads. Concrete at three concurrencies, so all are in one
 * run: {@link WriteBenchmark1Thread}, {@link WriteBenchmark4Threads}, {@link WriteBenchmark16Threads}.
 *
 * <p>All threads share one Lodestar client, as an application would: its single command connection pipelines
 * their scripts. The baseline likewise shares one plain Lettuce connection between the threads, built with the
 * settings Lodestar uses (RESP3, UTF-8 string codec, keep-alive, the default 5 s command timeout, commands
 * rejected while disconnected). The client runs with sweeps and reconciles off ({@link BenchRedis#quietClient}).
 *
 * <p>What one operation is:
 * <ul>
 *   <li>{@code register} / {@code rawRegister}: a new ephemeral instance (a new id every call, 10 minute TTL, so no
 *       renewal falls into a trial) of a service that already has one: register_instance.lua, which publishes
 *       "registered"; Lodestar also starts the instance's lease;</li>
 *   <li>{@code floorRegister}: the same new instance through floor_register.lua;</li>
 *   <li>{@code renew} / {@code rawRenew}: renew_instance.lua of this thread's registered instance (no event);</li>
 *   <li>{@code deregister} / {@code rawDeregister}: deregister_instance.lua of a live instance, a new one every
 *       call, taken from this thread's pool: registered before the iteration, untimed, through Lodestar for
 *       {@code deregister} (so its client holds their leases) and by the raw script for the baseline (see
 *       {@link Deregistering}); the deregistered instances leave tombstones behind, as in production;</li>
 *   <li>{@code setMetadata} / {@code rawSetMetadata}: update_instance.lua replacing the metadata, alternating
 *       between two maps, so every call publishes "updated"; both sides write the map as JSON in the call (as
 *       both register sides write their instance);</li>
 *   <li>{@code configSet} / {@code rawConfigSet}: set_config.lua of this thread's 1 KiB entry, alternating between
 *       two contents: a new version, trimmed history (20 kept), an event.</li>
 * </ul>
 * The writing client does not read the service, so no write waits for its own view.
 *
 * <p>Redis' own cost ({@link RedisStats}): {@code INFO commandstats} and {@code INFO cpu} read before and after
 * every measurement iteration give the EVALSHA calls, the microseconds Redis spent in them (per call: the figure
 * that decides how many writes one shard takes, whatever the client), the commands the scripts ran (counted under
 * their own names) and the server's CPU time. Each JMH fork starts a Redis of its own through the test kit, so the
 * difference is the benchmark's alone (on a server given by {@code LODESTAR_REDIS_URI}, whatever else runs there
 * counts too). When the system property
 * {@value #STATS_PROPERTY} names a file, each measurement iteration appends one JSON line to it ({@code jmh/run.sh}
 * does this and reports them).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar WriteBenchmark -rf json -rff jmh/results-writes.json
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public abstract class WriteBenchmark {
    /** Names the file Redis' statistics of every measurement iteration are appended to (JSON lines). */
    static final String STATS_PROPERTY = "lodestar.jmh.redisStats";
    static final Duration TTL = Duration.ofMinutes(10);
    static final String HISTORY_LIMIT = Integer.toString(LodestarOptions.DEFAULT_CONFIG_HISTORY_LIMIT);
    /** The deregister pair's pools before the first iteration, over all threads (then three times the last calls). */
    static final int FIRST_POOLS = 4000;
    static final int POOL_CHUNK = 500;
    static final Duration POOL_TIMEOUT = Duration.ofMinutes(2);

    /**
     * A new ephemeral instance of the benchmarks' service, {@code orders-<kind>-<n>} (a thread's registrations, a
     * deregister pool), with a 10.1.x.y address from {@code n}.
     */
    static ServiceInstance newInstance(String kind, long n) {
        return ServiceInstance.builder(Fixtures.SERVICE, Fixtures.SERVICE + "-" + kind + "-" + n)
                .host("10.1." + (n >> 8 & 255) + "." + (n & 255)).port(8080).weight(100).ttl(TTL)
                .metadata("zone", "eu-1").metadata("version", "2").build();
    }

    /** The server, the shared Lodestar client, the shared plain Lettuce connection and the scripts it runs. */
    @State(Scope.Benchmark)
    public static class Backend {
        BenchRedis redis;
        LodestarClient client;
        ServiceRegistry registry;
        RedisClient lettuce;
        StatefulRedisConnection<String, String> connection;
        RedisCommands<String, String> raw;
        String[] serviceKeys;
        RawRedis.Script registerScript;
        RawRedis.Script renewScript;
        RawRedis.Script deregisterScript;
        RawRedis.Script updateScript;
        RawRedis.Script setConfigScript;
        FloorScript floor;
        /** Where Redis' statistics of every measurement iteration go ({@value #STATS_PROPERTY}), or null. */
        Path statsFile;
        String server;
        RedisStats before;
        /**
         * For the deregister pair, how its pools are filled ({@link Deregistering}): through Lodestar for
         * {@code deregister}, by the raw script for {@code rawDeregister}; null for the other benchmarks.
         */
        Consumer<List<ServiceInstance>> poolRegistration;
        /** For the deregister pair: every thread has filled its pool; then the iteration's statistics start. */
        CyclicBarrier poolsFilled;
        /** Calls of this iteration that found their pool empty, so registered their instance themselves, timed. */
        final LongAdder ranDry = new LongAdder();
        final AtomicLong pooled = new AtomicLong();

        /** Starts everything and writes the resident instance. */
        @Setup(Level.Trial)
        public void setUp(BenchmarkParams benchmark) {
            redis = BenchRedis.start();
            client = redis.quietClient("jmh-writer");
            registry = client.registry();
            redis.registerAll(client, List.of(Fixtures.instance(Fixtures.SERVICE, 0)));

            lettuce = RawRedis.client(redis.uri());
            connection = RawRedis.connect(lettuce);
            raw = connection.sync();
            serviceKeys = RawRedis.serviceKeys(redis.namespace(), Fixtures.SERVICE);
            fileDueAsTheSweepLeavesIt();
            registerScript = RawRedis.Script.load(raw, "register_instance");
            renewScript = RawRedis.Script.load(raw, "renew_instance");
            deregisterScript = RawRedis.Script.load(raw, "deregister_instance");
            updateScript = RawRedis.Script.load(raw, "update_instance");
            setConfigScript = RawRedis.Script.load(raw, "set_config");
            floor = FloorScript.load(raw, redis.namespace());

            String file = System.getProperty(STATS_PROPERTY);
            statsFile = file == null ? null : Path.of(file);
            server = RedisStats.server(raw);
            String name = benchmark.getBenchmark();
            switch (name.substring(name.lastIndexOf('.') + 1)) {
                case "deregister" -> poolRegistration = instances -> redis.registerAll(client, instances);
                case "rawDeregister" -> poolRegistration = this::registerRaw;
                default -> poolRegistration = null;
            }
            if (poolRegistration != null) {
                poolsFilled = new CyclicBarrier(benchmark.getThreads(), this::startIteration);
            }
        }

        /**
         * The resident's registration, the service's first, made its due entry due now, for a sweep to report the
         * service to the index. No sweep runs here, so the entry is left as the sweep leaves it: at the earliest
         * deadline of the service's ephemeral instances, or (the resident is persistent) none. A fleet's services are
         * in that state between sweeps; in the other (the entry due until a sweep looks), a registration also counts
         * the service's instances (register_instance.lua: one command more).
         */
        private void fileDueAsTheSweepLeavesIt() {
            var earliest = raw.zrangeWithScores(serviceKeys[1], 0, 0);
            if (earliest.isEmpty()) {
                raw.zrem(serviceKeys[4], serviceKeys[0]);
            } else {
                raw.zadd(serviceKeys[4], earliest.get(0).getScore(), serviceKeys[0]);
            }
        }

        /**
         * Starts the iteration's statistics, except for the deregister pair: its threads fill their pools first,
         * and the last to finish starts them ({@link Deregistering#fill}), so the untimed registrations are no part
         * of the iteration's Redis time.
         */
        @Setup(Level.Iteration)
        public void beforeIteration() {
            if (poolRegistration == null) {
                startIteration();
            }
        }

        private void startIteration() {
            ranDry.reset();
            if (statsFile != null) {
                before = RedisStats.read(raw);
            }
        }

        /** Appends what a measurement iteration cost Redis to the stats file, if one is named. */
        @TearDown(Level.Iteration)
        public void recordStats(BenchmarkParams benchmark, IterationParams iteration) {
            if (statsFile == null || iteration.getType() != IterationType.MEASUREMENT) {
                return;
            }
            RedisStats.append(statsFile, benchmark.getBenchmark(), benchmark.getThreads(), server, before,
                    RedisStats.read(raw), poolRegistration == null ? Map.of() : Map.of("poolRanDry", ranDry.sum()));
        }

        /** Closes the connections and stops the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            try {
                connection.close();
                lettuce.shutdown();
            } finally {
                redis.close();
            }
        }

        ServiceInstance pooledInstance() {
            return newInstance("d", pooled.getAndIncrement());
        }

        /** Registers by the raw script, pipelined on the baselines' connection. */
        private void registerRaw(List<ServiceInstance> instances) {
            RedisAsyncCommands<String, String> async = connection.async();
            RedisFuture<?>[] pending = instances.stream()
                    .map(instance -> async.evalsha(registerScript.sha(), ScriptOutputType.MULTI, serviceKeys,
                            RawRedis.registerArgs(instance)))
                    .toArray(RedisFuture[]::new);
            if (!LettuceFutures.awaitAll(POOL_TIMEOUT, pending)) {
                throw new IllegalStateException("Could not register " + instances.size() + " instances in "
                        + POOL_TIMEOUT);
            }
        }
    }

    /** Each thread registers new instances of its own: {@code orders-t<thread>-<n>}. */
    @State(Scope.Thread)
    public static class Registering {
        String prefix;
        long seq;

        /** Picks this thread's instance ids. */
        @Setup(Level.Trial)
        public void setUp(ThreadParams thread) {
            prefix = "t" + thread.getThreadIndex();
        }

        ServiceInstance next() {
            return newInstance(prefix, seq++);
        }
    }

    /**
     * Each thread deregisters instances of its own pool: registered before every iteration, untimed, through
     * Lodestar for {@code deregister} and by the raw script for {@code rawDeregister} (see
     * {@link Backend#poolRegistration}). So every call removes a live instance, and the iteration's Redis statistics
     * hold deregistrations only; a call that finds the pool empty registers its instance itself, timed, and is
     * counted ({@code poolRanDry} in the stats file).
     *
     * <p>Each thread fills its own pool in its own iteration setup: a setup of the shared {@link Backend} runs on
     * one thread while JMH's other threads spin, and on two cores sixteen spinning threads starve the connections'
     * I/O threads past the command timeout.
     */
    @State(Scope.Thread)
    public static class Deregistering {
        Backend backend;
        final Deque<ServiceInstance> pool = new ArrayDeque<>();
        int threads;
        int calls;

        /** Notes the thread count, which sizes the first pool. */
        @Setup(Level.Trial)
        public void setUp(Backend backend, BenchmarkParams benchmark) {
            this.backend = backend;
            threads = benchmark.getThreads();
        }

        /**
         * Tops the pool up to three times this thread's calls of the last iteration (before the first: a share of
         * {@value #FIRST_POOLS}), so a measurement iteration runs dry only if its throughput triples; what is left
         * over stays for the next iteration, so a fill registers about one iteration's calls. Pipelined in chunks
         * of {@value #POOL_CHUNK}: all at once, the last would wait longer than the command timeout. Then waits
         * for the other threads' pools.
         */
        @Setup(Level.Iteration)
        public void fill() throws InterruptedException, BrokenBarrierException, TimeoutException {
            int target = Math.max(3 * calls, FIRST_POOLS / threads);
            calls = 0;
            List<ServiceInstance> fresh = new ArrayList<>();
            while (pool.size() + fresh.size() < target) {
                fresh.add(backend.pooledInstance());
            }
            for (int from = 0; from < fresh.size(); from += POOL_CHUNK) {
                backend.poolRegistration.accept(fresh.subList(from, Math.min(from + POOL_CHUNK, fresh.size())));
            }
            pool.addAll(fresh);
            backend.poolsFilled.await(POOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }

        /** @return the id of a registered instance no call has removed yet */
        String next() {
            calls++;
            ServiceInstance instance = pool.poll();
            if (instance == null) {
                backend.ranDry.increment();
                instance = backend.pooledInstance();
                backend.poolRegistration.accept(List.of(instance));
            }
            return instance.instanceId();
        }
    }

    /** Each thread renews or changes its own registered instance. */
    @State(Scope.Thread)
    public static class Updating {
        ServiceRegistry registry;
        String instanceId;
        List<Map<String, String>> metadata;
        int calls;

        /** Registers this thread's instance (ephemeral: this client holds its lease, as renew expects). */
        @Setup(Level.Trial)
        public void setUp(Backend backend, ThreadParams thread) {
            registry = backend.registry;
            ServiceInstance instance = Fixtures.ephemeral(Fixtures.SERVICE, 3000 + thread.getThreadIndex());
            instanceId = instance.instanceId();
            backend.redis.registerAll(backend.client, List.of(instance));
            metadata = List.of(Map.of("zone", "eu-1", "version", "2", "build", "a"),
                    Map.of("zone", "eu-1", "version", "2", "build", "b"));
        }

        Map<String, String> nextMetadata() {
            return metadata.get(calls++ & 1);
        }

    }

    /** Each thread sets its own config entry. */
    @State(Scope.Thread)
    public static class ConfigWriting {
        ConfigService config;
        String configId;
        String[] keys;
        List<String> contents;
        int calls;

        /** Creates this thread's entry and picks its two next contents. */
        @Setup(Level.Trial)
        public void setUp(Backend backend, ThreadParams thread) {
            config = backend.client.config();
            configId = "bench/thread-" + thread.getThreadIndex() + ".properties";
            keys = RawRedis.configKeys(backend.redis.namespace(), configId);
            backend.redis.setConfig(backend.client, configId, Fixtures.properties(1024, 0));
            contents = List.of(Fixtures.properties(1024, 1), Fixtures.properties(1024, 2));
        }

        String nextContent() {
            return contents.get(calls++ & 1);
        }
    }

    /** @return the registration of a new instance */
    @Benchmark
    public Registration register(Backend backend, Registering state) {
        return backend.registry.register(state.next());
    }

    /** @return the register script's reply for a new instance, by a plain EVALSHA */
    @Benchmark
    public List<Object> rawRegister(Backend backend, Registering state) {
        return backend.registerScript.run(backend.raw, backend.serviceKeys, RawRedis.registerArgs(state.next()));
    }

    /**
     * @return the new revision: the fixed floor ({@link FloorScript}) registering a new instance, by a plain
     *     EVALSHA on the baselines' connection
     */
    @Benchmark
    public Long floorRegister(Backend backend, Registering state) {
        return backend.floor.register(backend.raw, state.next());
    }

    /** @return true: the instance was registered */
    @Benchmark
    public boolean deregister(Backend backend, Deregistering state) {
        return backend.registry.deregister(Fixtures.SERVICE, state.next());
    }

    /** @return the deregister script's reply, by a plain EVALSHA */
    @Benchmark
    public List<Object> rawDeregister(Backend backend, Deregistering state) {
        return backend.deregisterScript.run(backend.raw, backend.serviceKeys, state.next(),
                RawRedis.TOMBSTONE_MILLIS, "deregister", RawRedis.WRITE_TOKEN);
    }

    /** Renews an instance this client registered. */
    @Benchmark
    public void renew(Updating state) {
        state.registry.renew(Fixtures.SERVICE, state.instanceId);
    }

    /** @return the renew script's reply, by a plain EVALSHA */
    @Benchmark
    public Object rawRenew(Backend backend, Updating state) {
        return backend.raw.evalsha(backend.renewScript.sha(), ScriptOutputType.INTEGER,
                backend.serviceKeys, state.instanceId);
    }

    /** @return the instance with its new metadata */
    @Benchmark
    public ServiceInstance setMetadata(Updating state) {
        return state.registry.setMetadata(Fixtures.SERVICE, state.instanceId, state.nextMetadata());
    }

    /**
     * @return the update script's reply, by a plain EVALSHA of the map written as JSON in the call, as
     *     {@code rawRegister} writes its instance: a client has a map to send, not its JSON
     */
    @Benchmark
    public List<Object> rawSetMetadata(Backend backend, Updating state) {
        return backend.updateScript.run(backend.raw, backend.serviceKeys, state.instanceId, "replace",
                RawRedis.json(state.nextMetadata()), "[]", RawRedis.WRITE_TOKEN);
    }

    /** @return the new version of the entry */
    @Benchmark
    public ConfigEntry configSet(ConfigWriting state) {
        return state.config.set(state.configId, state.nextContent(), ConfigFormat.PROPERTIES);
    }

    /** @return the set script's reply, by a plain EVALSHA */
    @Benchmark
    public List<Object> rawConfigSet(Backend backend, ConfigWriting state) {
        String content = state.nextContent();
        return backend.setConfigScript.run(backend.raw, state.keys, state.configId, content,
                ConfigFormat.PROPERTIES.name(), HISTORY_LIMIT, "-1", RawRedis.contentHash(content), "bench",
                "bench-host"); // the hash as Lodestar computes it, then the writer
    }
}
