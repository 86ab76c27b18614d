package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.List;

/**
 * Narrows the candidates of a balancer, e.g. to one zone or one version. Selectors run in the order they were added
 * to the builder, each on the result of the one before. Ready-made ones are in {@link Selectors}.
 *
 * <p>A selector runs <em>once per instance list</em>, not once per request: its result is cached with the list, so
 * it may allocate and take O(n) time. It must therefore be a pure function of its input (no clock, no randomness,
 * no request data; per-request routing is what {@link CanaryRouting} is for), must not change its input and must
 * return elements of its input.
 */
@FunctionalInterface
public interface Selector {
    /**
     * @param candidates what the previous stage left, never null, possibly empty; unmodifiable
     * @return the candidates to keep, possibly empty, never null; {@code candidates} itself when all are kept
     */
    List<ServiceInstance> select(List<ServiceInstance> candidates);
}
