package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.ConfigReader;
import io.lodestar.core.ConfigService;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigEntry;
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

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Config reads: {@code config().get(id)}, served by the local view, against the in-memory floor (a
 * {@code ConcurrentHashMap.get} of the same {@code Optional<ConfigEntry>} the view returns) and against the same
 * entry read from Redis. The entry is a 1 KiB properties text written by another client; both clients run with
 * sweeps and reconciles off.
 *
 * <p>The two Redis rows read the same thing:
 * <ul>
 *   <li>{@code directGet}: {@code directConfig().get(id)}, the view-less read of the public API — the view's own
 *       load script ({@code read_config.lua}: the current entry and its revision) by Lodestar's client code, decoded
 *       into the {@code Optional<ConfigEntry>} a {@code config().get} returns;</li>
 *   <li>{@code rawReadConfig}: the same script by a plain EVALSHA with the keys Lodestar passes, undecoded — the
 *       floor of {@code directGet}.</li>
 * </ul>
 * The view reads are meant to be run at several thread counts ({@code jmh/run.sh} runs 1, 2 and 4).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar ConfigReadBenchmark -prof gc -rf json -rff jmh/results-config.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class ConfigReadBenchmark {
    static final String CONFIG_ID = "orders/application.properties";

    /** One entry, written by one client and held by the other's view. */
    @State(Scope.Benchmark)
    public static class Entry {
        BenchRedis redis;
        ConfigService config;
        ConfigReader direct;
        Map<String, Optional<ConfigEntry>> floor;
        RedisClient lettuce;
        StatefulRedisConnection<String, String> connection;
        RedisCommands<String, String> raw;
        RawRedis.Script readConfig;
        String[] readKeys;

        /** Writes the entry, then makes the reader's view load it. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient writer = redis.quietClient("jmh-writer");
            ConfigEntry written = redis.setConfig(writer, CONFIG_ID, Fixtures.properties(1024, 0));
            LodestarClient reader = redis.quietClient("jmh-reader");
            config = reader.config();
            direct = reader.directConfig();
            Fixtures.check(config.get(CONFIG_ID).equals(Optional.of(written)), "the view holds the entry");
            Fixtures.check(direct.get(CONFIG_ID).equals(Optional.of(written)), "the direct read finds the entry");
            floor = new ConcurrentHashMap<>();
            floor.put(CONFIG_ID, config.get(CONFIG_ID));
            lettuce = RawRedis.client(redis.uri());
            connection = RawRedis.connect(lettuce);
            raw = connection.sync();
            readConfig = RawRedis.Script.load(raw, "read_config");
            readKeys = new String[] {RawRedis.configKeys(redis.namespace(), CONFIG_ID)[0]}; // current: ConfigKeys#forRead
            Fixtures.check(readConfig.run(raw, readKeys).size() == 8, "the raw read finds the entry");
        }

        /** Stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            try {
                connection.close();
                lettuce.shutdown();
            } finally {
                redis.close();
            }
        }
    }

    /** @return the entry, from the local view */
    @Benchmark
    public Optional<ConfigEntry> viewGet(Entry state) {
        return state.config.get(CONFIG_ID);
    }

    /** @return the same entry, from a map: the floor of a view read */
    @Benchmark
    public Optional<ConfigEntry> mapGet(Entry state) {
        return state.floor.get(CONFIG_ID);
    }

    /** @return the entry, read from Redis by {@code directConfig()} (no view) */
    @Benchmark
    public Optional<ConfigEntry> directGet(Entry state) {
        return state.direct.get(CONFIG_ID);
    }

    /** @return the current entry and revision, undecoded, by the view's load script run by a plain EVALSHA */
    @Benchmark
    public List<Object> rawReadConfig(Entry state) {
        return state.readConfig.run(state.raw, state.readKeys);
    }
}
