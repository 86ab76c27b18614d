package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How a balancer picks among the candidates its selectors left. Instances of weight 0 are never chosen, whatever
 * the strategy. Every pick is O(1), lock-free and allocation-free; the preparation (once per instance list) is
 * O(n), except {@link #WEIGHTED_ROUND_ROBIN}'s, which is bounded by a few million steps.
 */
public enum Strategy {
    /**
     * Each candidate with probability weight / total weight, in O(1) per pick with Walker's alias table (Vose's
     * construction, in exact integer arithmetic). The usual choice: no shared state between callers.
     */
    WEIGHTED_RANDOM(true) {
        @Override
        Picker prepare(ServiceInstance[] candidates, long[] weights, AtomicLong position) {
            return WeightedRandom.prepare(candidates, weights);
        }
    },
    /**
     * nginx's smooth weighted round robin: for weights 5, 1, 1 the order is a a b a c a a, so a heavy instance's
     * turns are spread out instead of bunched. Exact counts per cycle; the cycle is precomputed so that a pick is one
     * atomic increment and an array read. The cycle holds total weight / gcd(weights) entries; above 16 384 (fewer
     * for hundreds of instances) the weights are first scaled down proportionally, so shares may be off by half a unit
     * of the scaled weight.
     */
    WEIGHTED_ROUND_ROBIN(true) {
        @Override
        Picker prepare(ServiceInstance[] candidates, long[] weights, AtomicLong position) {
            return SmoothWeightedRoundRobin.prepare(candidates, weights, position);
        }
    },
    /** Each candidate in turn, ignoring weights above 0. */
    ROUND_ROBIN(false) {
        @Override
        Picker prepare(ServiceInstance[] candidates, long[] weights, AtomicLong position) {
            return RoundRobin.prepare(candidates, position);
        }
    },
    /** Each candidate with equal probability, ignoring weights above 0. */
    RANDOM(false) {
        @Override
        Picker prepare(ServiceInstance[] candidates, long[] weights, AtomicLong position) {
            return UniformRandom.prepare(candidates);
        }
    };

    private final boolean weighted;

    Strategy(boolean weighted) {
        this.weighted = weighted;
    }

    /** @return whether the strategy honours weights (and so supports slow start) */
    public boolean weighted() {
        return weighted;
    }

    /**
     * @param candidates at least one; not changed
     * @param weights    their weights, each above 0
     * @param position   the balancer's counter for this side, for round-robin strategies
     */
    abstract Picker prepare(ServiceInstance[] candidates, long[] weights, AtomicLong position);
}
