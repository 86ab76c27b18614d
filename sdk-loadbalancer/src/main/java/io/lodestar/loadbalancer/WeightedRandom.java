package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.random.RandomGenerator;

/**
 * Weighted random choice in O(1) with Walker's alias method, built with Vose's algorithm in integers so that the
 * probabilities are exact: column {@code i} (chosen uniformly) keeps its own instance when a number drawn from
 * {@code [0, total)} is below {@code threshold[i]}, else gives {@code alias[i]}. Each instance's probability is then
 * exactly weight / total.
 */
final class WeightedRandom implements Picker {
    private final ServiceInstance[] candidates;
    private final long[] threshold;
    private final int[] alias;
    private final long total;

    private WeightedRandom(ServiceInstance[] candidates, long[] threshold, int[] alias, long total) {
        this.candidates = candidates;
        this.threshold = threshold;
        this.alias = alias;
        this.total = total;
    }

    static Picker prepare(ServiceInstance[] candidates, long[] weights) {
        int n = candidates.length;
        if (n == 1) {
            return new Picker.Single(candidates[0]);
        }
        long total = 0;
        for (long weight : weights) {
            total += weight;
        }
        // Every column holds "total" units; instance i brings weight * n units (the sum over all is n * total).
        long[] units = new long[n];
        int[] small = new int[n];
        int[] large = new int[n];
        int smalls = 0;
        int larges = 0;
        for (int i = 0; i < n; i++) {
            units[i] = weights[i] * n;
            if (units[i] < total) {
                small[smalls++] = i;
            } else {
                large[larges++] = i;
            }
        }
        long[] threshold = new long[n];
        int[] alias = new int[n];
        while (smalls > 0 && larges > 0) {
            int low = small[--smalls];
            int high = large[--larges];
            threshold[low] = units[low];
            alias[low] = high;
            units[high] -= total - units[low];
            if (units[high] < total) {
                small[smalls++] = high;
            } else {
                large[larges++] = high;
            }
        }
        // In exact arithmetic whatever is left fills its column exactly.
        while (larges > 0) {
            int full = large[--larges];
            threshold[full] = total;
            alias[full] = full;
        }
        while (smalls > 0) {
            int full = small[--smalls];
            threshold[full] = total;
            alias[full] = full;
        }
        return new WeightedRandom(candidates, threshold, alias, total);
    }

    @Override
    public ServiceInstance pick(RandomGenerator random) {
        int column = random.nextInt(candidates.length);
        return random.nextLong(total) < threshold[column] ? candidates[column] : candidates[alias[column]];
    }

    /** For tests: the exact probability of each candidate implied by the table, as units of 1 / (n * total). */
    long[] impliedUnits() {
        int n = candidates.length;
        long[] units = new long[n];
        for (int i = 0; i < n; i++) {
            units[i] += threshold[i];
            units[alias[i]] += total - threshold[i];
        }
        return units;
    }
}
