package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
 *   <li>{@code deregister} / {@code rawDeregister}: deregister_instance.lua of this thread's instance, registered
 *       again before every call, untimed (JMH's per-invocation setup: at 4 and 16 threads one thread's untimed
 *       register can overlap another's timed call);</li>
 *   <li>{@code setMetadata} / {@code rawSetMetadata}: update_instance.lua replacing the metadata, alternating
 *       between two maps, so every call publishes "updated"; both sides write the map as JSON in the call (as
 *       both register sides write their instance);</li>
 *   <li>{@code configSet} / {@code rawConfigSet}: set_config.lua of this thread's 1 KiB entry, alternating between
 *       two contents: a new version, trimmed history (20 kept), an event.</li>
 * </ul>
 * The writing client does not read the service, so no write waits for its own view.
 *
 * <p>Redis' own cost: before every iteration the server's statistics are reset ({@code CONFIG RESETSTAT}); after
 * every measurement iteration {@code INFO commandstats} gives the EVALSHA calls and the microseconds Redis spent in
 * them ({@code usec_per_call}: the figure that decides how many writes one shard takes, whatever the client), and
 * {@code INFO cpu} the server's CPU time. When the system property {@value #STATS_PROPERTY} names a file, each
 * iteration appends one JSON line to it ({@code jmh/run.sh} does this and reports them). For the deregister pair,
 * half the EVALSHA calls are the untimed re-registrations.
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
        double cpuBefore;

        /** Starts everything and writes the resident instance. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            client = redis.quietClient("jmh-writer");
            registry = client.registry();
            redis.registerAll(client, List.of(Fixtures.instance(Fixtures.SERVICE, 0)));

            lettuce = RawRedis.client(redis.uri());
            connection = RawRedis.connect(lettuce);
            raw = connection.sync();
            serviceKeys = RawRedis.serviceKeys(redis.namespace(), Fixtures.SERVICE);
            registerScript = RawRedis.Script.load(raw, "register_instance");
            renewScript = RawRedis.Script.load(raw, "renew_instance");
            deregisterScript = RawRedis.Script.load(raw, "deregister_instance");
            updateScript = RawRedis.Script.load(raw, "update_instance");
            setConfigScript = RawRedis.Script.load(raw, "set_config");
            floor = FloorScript.load(raw, redis.namespace());
        }

        /** Resets Redis' statistics, so the iteration's own commands are counted. */
        @Setup(Level.Iteration)
        public void resetStats() {
            raw.configResetstat();
            cpuBefore = cpuSeconds(raw.info("cpu"));
        }

        /** Appends Redis' statistics of a measurement iteration to the stats file, if one is named. */
        @TearDown(Level.Iteration)
        public void recordStats(BenchmarkParams benchmark, IterationParams iteration) {
            String file = System.getProperty(STATS_PROPERTY);
            if (file == null || iteration.getType() != IterationType.MEASUREMENT) {
                return;
            }
            double cpu = cpuSeconds(raw.info("cpu")) - cpuBefore;
            Map<String, long[]> commands = commandStats(raw.info("commandstats"));
            StringBuilder line = new StringBuilder("{\"benchmark\":").append(RawRedis.quote(benchmark.getBenchmark()))
                    .append(",\"threads\":").append(benchmark.getThreads())
                    .append(String.format(Locale.ROOT, ",\"redisCpuSeconds\":%.6f", cpu))
                    .append(",\"commands\":{");
            String separator = "";
            for (Map.Entry<String, long[]> command : commands.entrySet()) {
                line.append(separator).append(RawRedis.quote(command.getKey())).append(":{\"calls\":")
                        .append(command.getValue()[0]).append(",\"usec\":").append(command.getValue()[1]).append('}');
                separator = ",";
            }
            line.append("}}\n");
            try {
                Files.writeString(Path.of(file), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
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

        private static double cpuSeconds(String info) {
            double total = 0;
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                    total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return total;
        }

        /** {@code cmdstat_evalsha:calls=12,usec=345,...} lines: command -> {calls, usec}. */
        private static Map<String, long[]> commandStats(String info) {
            Map<String, long[]> commands = new LinkedHashMap<>();
            for (String line : info.split("\r?\n")) {
                if (!line.startsWith("cmdstat_")) {
                    continue;
                }
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                long[] stats = new long[2];
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    String[] pair = field.split("=");
                    if (pair[0].equals("calls")) {
                        stats[0] = Long.parseLong(pair[1]);
                    } else if (pair[0].equals("usec")) {
                        stats[1] = Long.parseLong(pair[1]);
                    }
                }
                commands.put(command, stats);
            }
            return commands;
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
            prefix = Fixtures.SERVICE + "-t" + thread.getThreadIndex() + "-";
        }

        ServiceInstance next() {
            long n = seq++;
            return ServiceInstance.builder(Fixtures.SERVICE, prefix + n).host("10.1." + (n >> 8 & 255) + "."
                    + (n & 255)).port(8080).weight(100).ttl(TTL).metadata("zone", "eu-1").metadata("version", "2")
                    .build();
        }
    }

    /** Each thread deregisters its own instance, registered through Lodestar before every call, untimed. */
    @State(Scope.Thread)
    public static class Deregistering {
        ServiceRegistry registry;
        ServiceInstance instance;

        /** Picks this thread's instance. */
        @Setup(Level.Trial)
        public void setUp(Backend backend, ThreadParams thread) {
            registry = backend.registry;
            instance = Fixtures.ephemeral(Fixtures.SERVICE, 2000 + thread.getThreadIndex());
        }

        /** Registers, so that the next call has something to remove. */
        @Setup(Level.Invocation)
        public void register() {
            registry.register(instance);
        }
    }

    /** Each thread deregisters its own instance, registered by the raw script before every call, untimed. */
    @State(Scope.Thread)
    public static class RawDeregistering {
        Backend backend;
        ServiceInstance instance;
        String[] registerArgs;

        /** Picks this thread's instance. */
        @Setup(Level.Trial)
        public void setUp(Backend backend, ThreadParams thread) {
            this.backend = backend;
            instance = Fixtures.ephemeral(Fixtures.SERVICE, 2000 + thread.getThreadIndex());
            registerArgs = RawRedis.registerArgs(instance);
        }

        /** Registers, so that the next call has something to remove. */
        @Setup(Level.Invocation)
        public void register() {
            backend.registerScript.run(backend.raw, backend.serviceKeys, registerArgs);
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
    public boolean deregister(Deregistering state) {
        return state.registry.deregister(Fixtures.SERVICE, state.instance.instanceId());
    }

    /** @return the deregister script's reply, by a plain EVALSHA */
    @Benchmark
    public List<Object> rawDeregister(Backend backend, RawDeregistering state) {
        return backend.deregisterScript.run(backend.raw, backend.serviceKeys, state.instance.instanceId(),
                RawRedis.TOMBSTONE_MILLIS);
    }

    /** Renews an instance this client registered. */
    @Benchmark
    public void renew(Updating state) {
        state.registry.renew(Fixtures.SERVICE, state.instanceId);
    }

    /** @return the renew script's reply, by a plain EVALSHA */
    @Benchmark
    public Object rawRenew(Backend backend, Updating state) {
        return backend.raw.evalsha(backend.renewScript.sha(), io.lettuce.core.ScriptOutputType.INTEGER,
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
                RawRedis.json(state.nextMetadata()), "[]");
    }

    /** @return the new version of the entry */
    @Benchmark
    public ConfigEntry configSet(ConfigWriting state) {
        return state.config.set(state.configId, state.nextContent(), ConfigFormat.PROPERTIES);
    }

    /** @return the set script's reply, by a plain EVALSHA */
    @Benchmark
    public List<Object> rawConfigSet(Backend backend, ConfigWriting state) {
        return backend.setConfigScript.run(backend.raw, state.keys, state.configId, state.nextContent(),
                ConfigFormat.PROPERTIES.name(), HISTORY_LIMIT, "-1");
    }
}
