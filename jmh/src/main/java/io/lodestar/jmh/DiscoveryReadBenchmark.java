package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.model.ServiceInstance;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Registry reads: the local, PubSub-fed view ({@code discovery()}) against two references measured in the same run —
 * the in-memory floor, a {@code ConcurrentHashMap.get} of the same kind of immutable list, and a read of Redis on
 * every call ({@code directDiscovery()}, itself against a raw {@code HGETALL} of the instances hash) — for
 * {@code getInstances} of one service and {@code getServices} of the namespace.
 *
 * <p>Each state starts its own Redis (or uses {@code LODESTAR_REDIS_URI}), registers the instances through one
 * client and reads through another, so the reader's view was filled by a load and is kept by events, as in an
 * application. Every client runs with sweeps and reconciles off ({@link BenchRedis#quietClient}): nothing but the
 * reads runs while they are measured. The view reads are meant to be run at several thread counts ({@code -t 1},
 * {@code -t 2}, {@code -t 4}: {@code jmh/run.sh} does), all threads reading the one shared client. Parameters, each
 * only where it changes the work:
 * <ul>
 *   <li>{@code instances}: instances of the service read (1, 10, 100, 1000) — for every reader;</li>
 *   <li>{@code servicesHeld}: services the reading view holds (10, 1000; the read one plus one-instance others) —
 *       for the view read of instances, where it is the size of the view's map (and of the baseline's map); and
 *       services in the namespace for {@code getServices}.</li>
 * </ul>
 * The baselines: {@code mapGetInstances} gets, from a {@code ConcurrentHashMap} of {@code servicesHeld} entries,
 * an immutable list ({@code List.copyOf}, as the view holds) of {@code instances} instances; {@code mapGetServices}
 * gets the view's own set of services from a map; {@code rawHgetall} reads the service's instances hash with a
 * plain Lettuce {@code HGETALL} and nothing else (no decoding: the floor of {@code directGetInstances}, which runs
 * a read script and decodes every instance).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar DiscoveryReadBenchmark -prof gc -rf json -rff jmh/results-discovery.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class DiscoveryReadBenchmark {

    /** The reader's view holds {@code servicesHeld} services; the one read has {@code instances} instances. */
    @State(Scope.Benchmark)
    public static class View {
        @Param({"1", "10", "100", "1000"})
        public int instances;

        @Param({"10", "1000"})
        public int servicesHeld;

        BenchRedis redis;
        ServiceDiscovery discovery;

        /** Registers, then makes the reader's view load every service. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient writer = redis.quietClient("jmh-writer");
            redis.registerAll(writer, Fixtures.instances(Fixtures.SERVICE, instances, false));
            List<ServiceInstance> others = Fixtures.otherServices(servicesHeld - 1);
            redis.registerAll(writer, others);
            discovery = redis.quietClient("jmh-reader").discovery();
            for (ServiceInstance other : others) {
                discovery.getInstances(other.serviceId());
            }
            Fixtures.check(discovery.getInstances(Fixtures.SERVICE).size() == instances,
                    "the view holds every instance");
        }

        /** Stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            redis.close();
        }
    }

    /**
     * The in-memory floor of a view read: {@code servicesHeld} services in a {@code ConcurrentHashMap}, each an
     * immutable list; the one read has {@code instances} instances. No Redis.
     */
    @State(Scope.Benchmark)
    public static class Floor {
        @Param({"1", "10", "100", "1000"})
        public int instances;

        @Param({"10", "1000"})
        public int servicesHeld;

        Map<String, List<ServiceInstance>> services;

        /** Fills the map. */
        @Setup(Level.Trial)
        public void setUp() {
            services = new ConcurrentHashMap<>();
            services.put(Fixtures.SERVICE, Fixtures.instances(Fixtures.SERVICE, instances, false));
            for (ServiceInstance other : Fixtures.otherServices(servicesHeld - 1)) {
                services.put(other.serviceId(), List.of(other));
            }
        }
    }

    /** The service read has {@code instances} instances; reads go to Redis. */
    @State(Scope.Benchmark)
    public static class Direct {
        @Param({"1", "10", "100", "1000"})
        public int instances;

        BenchRedis redis;
        ServiceDiscovery discovery;
        RedisClient lettuce;
        StatefulRedisConnection<String, String> connection;
        RedisCommands<String, String> raw;
        String instancesKey;

        /** Registers. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient client = redis.quietClient("jmh-direct");
            redis.registerAll(client, Fixtures.instances(Fixtures.SERVICE, instances, false));
            discovery = client.directDiscovery();
            Fixtures.check(discovery.getInstances(Fixtures.SERVICE).size() == instances, "Redis holds every instance");
            lettuce = RawRedis.client(redis.uri());
            connection = RawRedis.connect(lettuce);
            raw = connection.sync();
            instancesKey = RawRedis.serviceKeys(redis.namespace(), Fixtures.SERVICE)[0];
            Fixtures.check(raw.hlen(instancesKey) == instances, "the raw read finds every instance");
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

    /** The namespace has {@code servicesHeld} services, one instance each. */
    @State(Scope.Benchmark)
    public static class Index {
        @Param({"10", "1000"})
        public int servicesHeld;

        BenchRedis redis;
        ServiceDiscovery view;
        ServiceDiscovery direct;
        Map<String, Set<String>> floor;

        /** Registers, then loads the reader's view of the index. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient writer = redis.quietClient("jmh-writer");
            redis.registerAll(writer, Fixtures.otherServices(servicesHeld));
            LodestarClient reader = redis.quietClient("jmh-reader");
            view = reader.discovery();
            direct = reader.directDiscovery();
            Fixtures.check(view.getServices().size() == servicesHeld, "the view holds every service");
            floor = new ConcurrentHashMap<>();
            floor.put(redis.namespace(), view.getServices());
        }

        /** Stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            redis.close();
        }
    }

    /** @return the instances, from the local view */
    @Benchmark
    public List<ServiceInstance> viewGetInstances(View state) {
        return state.discovery.getInstances(Fixtures.SERVICE);
    }

    /** @return the same kind of list, from a map: the floor of a view read */
    @Benchmark
    public List<ServiceInstance> mapGetInstances(Floor state) {
        return state.services.get(Fixtures.SERVICE);
    }

    /** @return the instances, read from Redis */
    @Benchmark
    public List<ServiceInstance> directGetInstances(Direct state) {
        return state.discovery.getInstances(Fixtures.SERVICE);
    }

    /** @return the namespace's services, from the local view */
    @Benchmark
    public Set<String> viewGetServices(Index state) {
        return state.view.getServices();
    }

    /** @return the view's set of services, from a map: the floor of a view read */
    @Benchmark
    public Set<String> mapGetServices(Index state) {
        return state.floor.get(state.redis.namespace());
    }

    /** @return the stored instances (JSON, undecoded), by a plain HGETALL: the floor of a direct read */
    @Benchmark
    public Map<String, String> rawHgetall(Direct state) {
        return state.raw.hgetall(state.instancesKey);
    }

    /** @return the namespace's services, read from Redis */
    @Benchmark
    public Set<String> directGetServices(Index state) {
        return state.direct.getServices();
    }
}
