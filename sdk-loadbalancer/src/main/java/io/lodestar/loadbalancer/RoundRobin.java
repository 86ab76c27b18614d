package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/** Plain round robin: one atomic increment per pick; concurrent callers get distinct positions. */
final class RoundRobin implements Picker {
    private final ServiceInstance[] candidates;
    private final AtomicLong position;

    private RoundRobin(ServiceInstance[] candidates, AtomicLong position) {
        this.candidates = candidates;
        this.position = position;
    }

    static Picker prepare(ServiceInstance[] candidates, AtomicLong position) {
        return candidates.length == 1 ? new Picker.Single(candidates[0]) : new RoundRobin(candidates, position);
    }

    @Override
    public ServiceInstance pick(RandomGenerator random) {
        return candidates[Math.floorMod(position.getAndIncrement(), candidates.length)];
    }
}
