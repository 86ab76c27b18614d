package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import static io.lodestar.loadbalancer.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;

class ConcurrencyTest {
    private static final int THREADS = 8;
    private static final int CALLS = 70_000;

    @Test
    void concurrentCallersTogetherWalkTheExactSmoothCycle() throws Exception {
        // given weights 5, 1, 1 (cycle of 7) and 8 threads making 70 000 calls each
        List<ServiceInstance> instances = List.of(instance("a", 5), instance("b", 1), instance("c", 1));
        LoadBalancer balancer = LoadBalancers.weightedRoundRobin().build();

        // when they all choose at once
        Map<String, Long> counts = hammer(() -> instances, balancer);

        // then every position of the cycle was handed out exactly once: the totals are exact
        assertThat(counts).isEqualTo(Map.of("a", 400_000L, "b", 80_000L, "c", 80_000L));
    }

    @Test
    void concurrentCallersOfEveryStrategySurviveListChanges() throws Exception {
        for (Strategy strategy : Strategy.values()) {
            // given a list that a writer thread keeps replacing while 8 threads choose
            List<ServiceInstance> small = List.of(instance("a", 100), instance("b", 300));
            List<ServiceInstance> large = List.of(instance("a", 100), instance("b", 300), instance("c", 0),
                    instance("d", 50, "canary", "true"));
            AtomicReference<List<ServiceInstance>> current = new AtomicReference<>(small);
            LoadBalancer balancer = LoadBalancers.builder(strategy)
                    .canary(CanaryRouting.byMetadata().percent(5))
                    .selector(Selectors.zonePreference("eu-1")).build();
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer = new Thread(() -> {
                while (writing.get()) {
                    current.set(current.get() == small ? large : small);
                    Thread.onSpinWait();
                }
            });
            writer.start();

            // when
            Map<String, Long> counts;
            try {
                counts = hammer(current::get, balancer);
            } finally {
                writing.set(false);
                writer.join(5_000);
            }

            // then no call failed, every call was counted, weight 0 never came up
            assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).as(strategy.name())
                    .isEqualTo((long) THREADS * CALLS);
            assertThat(counts).as(strategy.name()).doesNotContainKey("c");
        }
    }

    /** Runs THREADS threads of CALLS choices each, started together; rethrows the first failure. */
    private static Map<String, Long> hammer(Supplier<List<ServiceInstance>> instances,
                                            LoadBalancer balancer) throws Exception {
        Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < CALLS; i++) {
                        String id = balancer.choose(instances.get()).instanceId();
                        counts.computeIfAbsent(id, k -> new LongAdder()).increment();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, Long> totals = new TreeMap<>();
        counts.forEach((id, adder) -> totals.put(id, adder.sum()));
        return totals;
    }
}
