package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.random.RandomGenerator;

/** Plain random: each candidate with the same probability, one bounded random int per pick. */
final class UniformRandom implements Picker {
    private final ServiceInstance[] candidates;

    private UniformRandom(ServiceInstance[] candidates) {
        this.candidates = candidates;
    }

    static Picker prepare(ServiceInstance[] candidates) {
        return candidates.length == 1 ? new Picker.Single(candidates[0]) : new UniformRandom(candidates);
    }

    @Override
    public ServiceInstance pick(RandomGenerator random) {
        return candidates[random.nextInt(candidates.length)];
    }
}
