package io.lodestar.jmh;

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
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Registry reads: the local, PubSub-fed view ({@code discovery()}) against a read of Redis on every call
 * ({@code directDiscovery()}), for {@code getInstances} of one service and {@code getServices} of the namespace.
 *
 * <p>Each state starts its own Redis (or uses {@code LODESTAR_REDIS_URI}), registers the instances through one
 * client and reads through another, so the reader's view was filled by a load and is kept by events, as in an
 * application. Parameters, each only where it changes the work:
 * <ul>
 *   <li>{@code instances}: instances of the service read (1, 10, 100, 1000) — for both readers;</li>
 *   <li>{@code servicesHeld}: services the reading view holds (10, 1000; the read one plus one-instance others) —
 *       for the view read of instances, where it is the size of the view's map; and services in the namespace
 *       for {@code getServices}.</li>
 * </ul>
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
            LodestarClient writer = redis.client("jmh-writer");
            redis.registerAll(writer, Fixtures.instances(Fixtures.SERVICE, instances, false));
            List<ServiceInstance> others = Fixtures.otherServices(servicesHeld - 1);
            redis.registerAll(writer, others);
            discovery = redis.client("jmh-reader").discovery();
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

    /** The service read has {@code instances} instances; reads go to Redis. */
    @State(Scope.Benchmark)
    public static class Direct {
        @Param({"1", "10", "100", "1000"})
        public int instances;

        BenchRedis redis;
        ServiceDiscovery discovery;

        /** Registers. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient client = redis.client("jmh-direct");
            redis.registerAll(client, Fixtures.instances(Fixtures.SERVICE, instances, false));
            discovery = client.directDiscovery();
            Fixtures.check(discovery.getInstances(Fixtures.SERVICE).size() == instances, "Redis holds every instance");
        }

        /** Stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            redis.close();
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

        /** Registers, then loads the reader's view of the index. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient writer = redis.client("jmh-writer");
            redis.registerAll(writer, Fixtures.otherServices(servicesHeld));
            LodestarClient reader = redis.client("jmh-reader");
            view = reader.discovery();
            direct = reader.directDiscovery();
            Fixtures.check(view.getServices().size() == servicesHeld, "the view holds every service");
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

    /** @return the namespace's services, read from Redis */
    @Benchmark
    public Set<String> directGetServices(Index state) {
        return state.direct.getServices();
    }
}
