package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * nginx's smooth weighted round robin, made lock-free by precomputing its cycle.
 *
 * <p>The live algorithm (every step: add each weight to its instance's counter, pick the largest counter, subtract
 * the total from it) mutates n counters per pick, so sharing it between threads needs a lock or a copy per pick.
 * But its state returns to all-zero after exactly total-weight steps, in which each instance is picked exactly
 * weight times: the sequence is periodic. So it is computed once per instance list, and a pick is
 * {@code cycle[position++ mod length]}: one atomic increment, no lock, no allocation. Concurrent callers get
 * distinct positions, so together they walk exactly nginx's sequence.
 *
 * <p>The cycle has total/gcd(weights) entries. When that exceeds {@link #limit(int)} (at most
 * {@value #MAX_CYCLE} entries, fewer for many instances so that building stays under {@value #BUILD_BUDGET} steps)
 * the weights are first scaled down proportionally (rounded, at least 1): still smooth and lock-free, with each
 * share off by at most half a unit of the scaled weight. Default weights (all 100) and usual weight sets reduce to
 * short cycles and are exact.
 */
final class SmoothWeightedRoundRobin implements Picker {
    /** Longest cycle kept: 16 Ki references. */
    static final int MAX_CYCLE = 16_384;
    /** Most counter updates spent building one cycle (length times instances). */
    static final long BUILD_BUDGET = 1L << 22;

    private final ServiceInstance[] cycle;
    private final AtomicLong position;

    private SmoothWeightedRoundRobin(ServiceInstance[] cycle, AtomicLong position) {
        this.cycle = cycle;
        this.position = position;
    }

    static Picker prepare(ServiceInstance[] candidates, long[] weights, AtomicLong position) {
        int n = candidates.length;
        if (n == 1) {
            return new Picker.Single(candidates[0]);
        }
        long[] reduced = reduce(weights.clone());
        long length = sum(reduced);
        long limit = limit(n);
        if (length > limit) {
            for (int i = 0; i < n; i++) {
                reduced[i] = Math.max(1, Math.round((double) reduced[i] * limit / length));
            }
            reduced = reduce(reduced);
            length = sum(reduced);
        }
        if (length == n) {
            return new SmoothWeightedRoundRobin(candidates.clone(), position); // equal weights: plain order
        }
        return new SmoothWeightedRoundRobin(cycle(candidates, reduced, (int) length), position);
    }

    /** The cycle length above which weights are scaled: at least one entry per instance. */
    static long limit(int n) {
        return Math.max(n, Math.min(MAX_CYCLE, BUILD_BUDGET / n));
    }

    /** nginx's loop, run for one full period. Ties go to the earlier instance, as in nginx. */
    static ServiceInstance[] cycle(ServiceInstance[] candidates, long[] weights, int length) {
        int n = candidates.length;
        long[] current = new long[n];
        ServiceInstance[] cycle = new ServiceInstance[length];
        for (int step = 0; step < length; step++) {
            int best = 0;
            for (int i = 0; i < n; i++) {
                current[i] += weights[i];
                if (current[i] > current[best]) {
                    best = i;
                }
            }
            current[best] -= length;
            cycle[step] = candidates[best];
        }
        return cycle;
    }

    @Override
    public ServiceInstance pick(RandomGenerator random) {
        return cycle[Math.floorMod(position.getAndIncrement(), cycle.length)];
    }

    /** For tests: the length of the precomputed cycle. */
    int cycleLength() {
        return cycle.length;
    }

    private static long[] reduce(long[] weights) {
        long gcd = 0;
        for (long weight : weights) {
            gcd = gcd(gcd, weight);
        }
        if (gcd > 1) {
            for (int i = 0; i < weights.length; i++) {
                weights[i] /= gcd;
            }
        }
        return weights;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    private static long sum(long[] weights) {
        long sum = 0;
        for (long weight : weights) {
            sum += weight;
        }
        return sum;
    }
}
