package io.lodestar.core.model;

import io.lodestar.core.internal.Validation;

import java.util.List;

/**
 * The instances of one service at one revision. Immutable; a view hands out the same snapshot object until the
 * service changes, so callers (load balancers) may cache work per snapshot by identity.
 *
 * @param serviceId the service
 * @param revision  the service's revision this snapshot reflects (0 = never written)
 * @param instances the instances, ordered by instance id, unmodifiable
 */
public record ServiceSnapshot(String serviceId, long revision, List<ServiceInstance> instances) {
    /**
     * Copies the list when needed.
     *
     * @throws io.lodestar.core.InvalidArgumentException when the service id breaks its rule, the revision is
     *     negative or the list is null or holds null
     */
    public ServiceSnapshot {
        Validation.collector()
                .serviceId("serviceId", serviceId)
                .range("revision", revision, 0, Long.MAX_VALUE)
                .elements("instances", instances)
                .throwIfInvalid();
        instances = List.copyOf(instances);
    }

    /**
     * @param serviceId the service
     * @return an empty snapshot at revision 0
     */
    public static ServiceSnapshot empty(String serviceId) {
        return new ServiceSnapshot(serviceId, 0, List.of());
    }
}
