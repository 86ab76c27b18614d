package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.model.ServiceInstance;

import java.util.List;

/**
 * Chooses one instance of a service for one request. Build one with {@link LoadBalancers}; use one balancer per
 * service.
 *
 * <p>The balancers of this package prepare everything a choice needs (the filtered candidates, the alias table,
 * the round-robin cycle) once per instance list and cache it by <em>identity</em>: pass the list a discovery view
 * hands out ({@code discovery.getInstances(id)} or {@code getSnapshot(id).instances()}), which stays the same object
 * until the service changes. Then {@code choose} is O(1), lock-free and allocation-free. The list must not be
 * changed in place after it was passed; a new list object costs one rebuild.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface LoadBalancer {
    /**
     * Chooses an instance for a request that carries attributes (canary hint, sticky key).
     *
     * @param instances the service's instances, every status; not changed in place once passed
     * @param context   the request's attributes; {@link RequestContext#NONE} when there are none
     * @return the chosen instance, one of {@code instances}
     * @throws NoInstanceAvailableException when no instance can be chosen (empty list, every candidate filtered
     *                                      out and the {@link EmptyPolicy} is {@link EmptyPolicy#FAIL}, ...);
     *                                      the exception says what was filtered where
     * @throws InvalidArgumentException     when {@code instances} or {@code context} is null, or the list holds null
     */
    ServiceInstance choose(List<ServiceInstance> instances, RequestContext context);

    /**
     * Chooses an instance for a request without attributes.
     *
     * @param instances the service's instances, every status; not changed in place once passed
     * @return the chosen instance, one of {@code instances}
     * @throws NoInstanceAvailableException when no instance can be chosen
     * @throws InvalidArgumentException     when {@code instances} is null or holds null
     */
    default ServiceInstance choose(List<ServiceInstance> instances) {
        return choose(instances, RequestContext.NONE);
    }

    /**
     * How often the {@link ProtectionPolicy} held back a suspicious update (one count per incident, not per call).
     *
     * @return the number of times protection triggered; 0 when the balancer has no protection
     */
    default long protectionTriggers() {
        return 0;
    }

    /**
     * Whether the balancer is currently serving a previous instance list because the newest one looked like a
     * mass deregistration.
     *
     * @return true while an update is held back
     */
    default boolean holdingBackUpdate() {
        return false;
    }
}
