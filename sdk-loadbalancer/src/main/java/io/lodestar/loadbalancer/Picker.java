package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.random.RandomGenerator;

/**
 * One strategy prepared for one set of candidates: immutable apart from an atomic position counter, so
 * {@link #pick(RandomGenerator)} is thread-safe without a lock. Never built for zero candidates.
 */
interface Picker {
    /**
     * @param random the generator to draw from (a seeded one, or the caller's {@code ThreadLocalRandom})
     * @return one of the candidates; O(1), no allocation
     */
    ServiceInstance pick(RandomGenerator random);

    /** The shortcut every strategy takes for a single candidate. */
    record Single(ServiceInstance instance) implements Picker {
        @Override
        public ServiceInstance pick(RandomGenerator random) {
            return instance;
        }
    }
}
