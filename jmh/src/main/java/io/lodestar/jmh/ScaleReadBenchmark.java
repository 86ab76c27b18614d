package io.lodestar.jmh;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * View reads at scale (issue 17, "Scale"): a view holding {@code services} services of 10 instances each, read in
 * a random order, so a read finds its service among all of them (and misses the CPU caches as a real process
 * does), against the floor of the same lookups in a {@code ConcurrentHashMap} of the same names holding the same
 * lists. Sweeps and reconciles are off. The random order is drawn once (16,384 service names, fixed seed), so both
 * benchmarks read the same sequence, with the same {@code String} objects the view and the map hold as keys (their
 * hashes cached), in tables of the same size (16,384 bins).
 *
 * <p>Both sides touch the same objects: the map's read casts its value to {@code List} (a load of the list's class
 * word: a cache miss, as the view's read of the snapshot it lands on). {@code meters}: whether the reader is bound
 * to a Micrometer registry, which makes it count every read ({@code lodestar.view.reads}); without one (the
 * default, as the other read benchmarks) reads are not counted.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ScaleReadBenchmark {
    private static final int INSTANCES = 10;
    private static final int ORDER = 1 << 14;
    private static final int REGISTER_CHUNK = 1_000;

    /** The view and the floor map, and the order of the reads. */
    @State(Scope.Benchmark)
    public static class Held {
        @Param({"10000"})
        public int services;

        @Param({"false"})
        public boolean meters;

        BenchRedis redis;
        ServiceDiscovery view;
        Map<String, List<ServiceInstance>> floor;
        String[] order;

        /** Registers every instance, preloads the view, fills the map with the view's own lists. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient writer = redis.quietClient("jmh-writer");
            List<String> names = new ArrayList<>(services);
            List<ServiceInstance> instances = new ArrayList<>(services * INSTANCES);
            for (int s = 0; s < services; s++) {
                String name = String.format("svc-%05d", s);
                names.add(name);
                for (int i = 0; i < INSTANCES; i++) {
                    instances.add(Fixtures.instance(name, i));
                }
            }
            for (int from = 0; from < instances.size(); from += REGISTER_CHUNK) { // bounded in flight
                redis.registerAll(writer, instances.subList(from, Math.min(instances.size(), from + REGISTER_CHUNK)));
            }
            LodestarClient reader = redis.quietClient("jmh-reader");
            if (meters) {
                RedisLodestar.bindMetrics(reader, new SimpleMeterRegistry());
            }
            view = reader.discovery();
            view.preload(names).toCompletableFuture().orTimeout(120, TimeUnit.SECONDS).join();
            floor = new ConcurrentHashMap<>();
            for (String name : names) {
                List<ServiceInstance> held = view.getInstances(name);
                Fixtures.check(held.size() == INSTANCES, "the view holds every instance of " + name);
                floor.put(name, held);
            }
            SplittableRandom random = new SplittableRandom(17);
            order = new String[ORDER];
            for (int i = 0; i < ORDER; i++) {
                order[i] = names.get(random.nextInt(services));
            }
        }

        /** Stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            redis.close();
        }
    }

    /** Each thread's place in the order of reads. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;

        String name(Held held) {
            return held.order[next++ & (ORDER - 1)];
        }
    }

    /** @return the instances of the next service in the order, from the local view */
    @Benchmark
    public List<ServiceInstance> viewGetInstancesOfAny(Held held, Cursor cursor) {
        return held.view.getInstances(cursor.name(held));
    }

    /** @return the same list, from a map: the floor of a view read */
    @Benchmark
    public List<ServiceInstance> mapGetInstancesOfAny(Held held, Cursor cursor) {
        return held.floor.get(cursor.name(held));
    }
}
