package io.lodestar.jmh;

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

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Config reads: {@code config().get(id)}, served by the local view, against the same entry read from Redis.
 *
 * <p>The config API has no "direct" reader, so the Redis path is {@code config().getVersion(id, currentVersion)}:
 * one HGET of the entry's history hash and the decoding of the stored entry into a {@code ConfigEntry} — the same
 * work a view-less {@code get} would do. The entry is a 1 KiB properties text written by another client.
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
        long version;

        /** Writes the entry, then makes the reader's view load it. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient writer = redis.client("jmh-writer");
            ConfigEntry written = redis.setConfig(writer, CONFIG_ID, Fixtures.properties(1024, 0));
            version = written.version();
            config = redis.client("jmh-reader").config();
            Fixtures.check(config.get(CONFIG_ID).map(ConfigEntry::version).orElse(0L) == version,
                    "the view holds the entry");
        }

        /** Stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            redis.close();
        }
    }

    /** @return the entry, from the local view */
    @Benchmark
    public Optional<ConfigEntry> viewGet(Entry state) {
        return state.config.get(CONFIG_ID);
    }

    /** @return the entry, read from Redis */
    @Benchmark
    public Optional<ConfigEntry> directGet(Entry state) {
        return state.config.getVersion(CONFIG_ID, state.version);
    }
}
