package io.lodestar.loadbalancer;

import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/** Instances, a settable clock and counting helpers shared by the tests. */
final class Fixtures {
    static final String SERVICE = "orders";

    private Fixtures() {
    }

    /** An UP instance of {@value #SERVICE} on a host named after it; metadata as key, value, key, value... */
    static ServiceInstance instance(String id, int weight, String... metadata) {
        return instance(id, weight, InstanceStatus.UP, metadata);
    }

    static ServiceInstance instance(String id, int weight, InstanceStatus status, String... metadata) {
        ServiceInstance.Builder builder = ServiceInstance.builder(SERVICE, id).host(id + ".internal").port(8080)
                .weight(weight).status(status);
        for (int i = 0; i < metadata.length; i += 2) {
            builder.metadata(metadata[i], metadata[i + 1]);
        }
        return builder.build();
    }

    static ServiceInstance registeredAt(ServiceInstance instance, Instant at) {
        return instance.toBuilder().registeredAt(at).build();
    }

    /** Calls {@code choose} {@code times} times and counts the chosen instance ids. */
    static Map<String, Long> count(int times, Supplier<ServiceInstance> choose) {
        Map<String, Long> counts = new TreeMap<>();
        for (int i = 0; i < times; i++) {
            counts.merge(choose.get().instanceId(), 1L, Long::sum);
        }
        return counts;
    }

    /** The ids of {@code times} consecutive choices, concatenated. */
    static String sequence(int times, Supplier<ServiceInstance> choose) {
        StringBuilder ids = new StringBuilder();
        for (int i = 0; i < times; i++) {
            ids.append(choose.get().instanceId());
        }
        return ids.toString();
    }

    /**
     * Pearson's chi-square statistic of observed counts against expected shares.
     *
     * @param observed counts by id
     * @param weights  expected relative weights by id (need not sum to 1)
     */
    static double chiSquare(Map<String, Long> observed, Map<String, Double> weights) {
        double total = observed.values().stream().mapToLong(Long::longValue).sum();
        double weightSum = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        double statistic = 0;
        for (Map.Entry<String, Double> entry : weights.entrySet()) {
            double expected = total * entry.getValue() / weightSum;
            double deviation = observed.getOrDefault(entry.getKey(), 0L) - expected;
            statistic += deviation * deviation / expected;
        }
        return statistic;
    }

    static Map<String, Double> weightsOf(List<ServiceInstance> instances) {
        Map<String, Double> weights = new HashMap<>();
        for (ServiceInstance instance : instances) {
            if (instance.weight() > 0) {
                weights.put(instance.instanceId(), (double) instance.weight());
            }
        }
        return weights;
    }

    /** A clock the test moves by hand. */
    static final class MutableClock implements InstantSource {
        private volatile long millis;

        MutableClock(Instant start) {
            this.millis = start.toEpochMilli();
        }

        void advanceMillis(long delta) {
            millis += delta;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public long millis() {
            return millis;
        }
    }
}
