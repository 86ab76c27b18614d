package io.lodestar.jmh;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;
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
import org.openjdk.jmh.infra.ThreadParams;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Writes through the Lua scripts — register, renew, deregister, set metadata, config set — and the raw Redis round
 * trip they are compared with: a plain GET of a 64-byte value. Throughput in operations per second, summed over
 * the threads. Concrete at two concurrencies, so both are in one run: {@link WriteBenchmark1Thread} and
 * {@link WriteBenchmark4Threads}.
 *
 * <p>All threads share one Lodestar client, as an application would: its single command connection pipelines
 * their scripts. The baseline likewise shares one plain Lettuce connection between the threads, built with the
 * settings Lodestar uses (RESP2, UTF-8 string codec, keep-alive, the default 5 s command timeout, commands
 * rejected while disconnected). It cannot be Lodestar's own connection, which the public API does not expose.
 *
 * <p>What one operation is:
 * <ul>
 *   <li>{@code register}: a new ephemeral instance (not a re-registration) of a service that already has
 *       instances; its lease is set up. Each thread deregisters its instance again after every call, outside the
 *       measured time;</li>
 *   <li>{@code deregister}: removal of a registered instance (registered before every call, not measured);</li>
 *   <li>{@code renew}: {@code registry().renew} of an instance this client registered (one script, no event);</li>
 *   <li>{@code setMetadata}: a metadata change (alternating between two maps, so every call bumps the revision and
 *       publishes an event);</li>
 *   <li>{@code configSet}: an update of an existing 1 KiB properties entry, alternating between two contents
 *       (setting the same content is a no-op); every call adds a version, trims the history and publishes an
 *       event;</li>
 *   <li>{@code rawGet}: {@code GET} of a 64-byte string.</li>
 * </ul>
 * The writing client does not read the service, so no write waits for its own view (read-your-writes applies
 * only to services a client's view holds). A resident instance keeps the service in the namespace index, so
 * registering and deregistering never add the service to it or remove it: these are the steady-state costs, not
 * those of a service's first instance or a config's creation.
 *
 * <p>Invocation-level setup and teardown (for {@code register} and {@code deregister}) run outside the measured
 * time, but at 4 threads one thread's untimed write can overlap another's timed one.
 *
 * <p>Run both concurrencies (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
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
    private static final Duration TIMEOUT = LodestarOptions.DEFAULT_COMMAND_TIMEOUT;

    /** The server, the shared Lodestar client and the shared plain Lettuce connection. */
    @State(Scope.Benchmark)
    public static class Backend {
        BenchRedis redis;
        LodestarClient client;
        ServiceRegistry registry;
        RedisClient lettuce;
        StatefulRedisConnection<String, String> connection;
        RedisCommands<String, String> raw;
        String baselineKey;

        /** Starts everything and writes the resident instance and the baseline key. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            client = redis.client("jmh-writer");
            registry = client.registry();
            redis.registerAll(client, List.of(Fixtures.instance(Fixtures.SERVICE, 0)));

            lettuce = RedisClient.create(RedisURI.create(redis.uri()));
            lettuce.setOptions(ClientOptions.builder()
                    .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).keepAlive(true).build())
                    .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
                    .protocolVersion(ProtocolVersion.RESP2)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .build());
            connection = lettuce.connect(StringCodec.UTF8);
            raw = connection.sync();
            baselineKey = redis.namespace() + ":baseline";
            raw.set(baselineKey, "x".repeat(64));
        }

        /** Deletes the baseline key, closes the connections and stops the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            try {
                raw.del(baselineKey);
                connection.close();
                lettuce.shutdown();
            } finally {
                redis.close();
            }
        }
    }

    /** Each thread registers its own instance; it is deregistered after every call, untimed. */
    @State(Scope.Thread)
    public static class Registering {
        ServiceRegistry registry;
        ServiceInstance instance;

        /** Picks this thread's instance. */
        @Setup(Level.Trial)
        public void setUp(Backend backend, ThreadParams thread) {
            registry = backend.registry;
            instance = Fixtures.ephemeral(Fixtures.SERVICE, 1000 + thread.getThreadIndex());
        }

        /** Deregisters, so that the next call registers anew. */
        @TearDown(Level.Invocation)
        public void deregister() {
            registry.deregister(Fixtures.SERVICE, instance.instanceId());
        }
    }

    /** Each thread deregisters its own instance, registered before every call, untimed. */
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
        List<String> contents;
        int calls;

        /** Creates this thread's entry and picks its two next contents. */
        @Setup(Level.Trial)
        public void setUp(Backend backend, ThreadParams thread) {
            config = backend.client.config();
            configId = "bench/thread-" + thread.getThreadIndex() + ".properties";
            backend.redis.setConfig(backend.client, configId, Fixtures.properties(1024, 0));
            contents = List.of(Fixtures.properties(1024, 1), Fixtures.properties(1024, 2));
        }

        String nextContent() {
            return contents.get(calls++ & 1);
        }
    }

    /** @return the registration of a new instance */
    @Benchmark
    public Registration register(Registering state) {
        return state.registry.register(state.instance);
    }

    /** @return true: the instance was registered */
    @Benchmark
    public boolean deregister(Deregistering state) {
        return state.registry.deregister(Fixtures.SERVICE, state.instance.instanceId());
    }

    /** Renews an instance this client registered. */
    @Benchmark
    public void renew(Updating state) {
        state.registry.renew(Fixtures.SERVICE, state.instanceId);
    }

    /** @return the instance with its new metadata */
    @Benchmark
    public ServiceInstance setMetadata(Updating state) {
        return state.registry.setMetadata(Fixtures.SERVICE, state.instanceId, state.nextMetadata());
    }

    /** @return the new version of the entry */
    @Benchmark
    public ConfigEntry configSet(ConfigWriting state) {
        return state.config.set(state.configId, state.nextContent(), ConfigFormat.PROPERTIES);
    }

    /** @return the baseline value, through a plain Lettuce connection */
    @Benchmark
    public String rawGet(Backend state) {
        return state.raw.get(state.baselineKey);
    }
}
