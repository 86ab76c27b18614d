package io.lodestar.core.model;

import java.util.List;
import java.util.Objects;

/**
 * The instances of one service at one revision. Immutable; a view hands out the same snapshot object until the
 * service changes, so callers (load balancers) may cache work per snapshot by identity.
 *
 * @param serviceId the service
 * @param revision  the service's revision this snapshot reflects (0 = never written)
 * @param instances the instances, ordered by instance id, unmodifiable
 */
public record ServiceSnapshot(String serviceId, long revision, List<ServiceInstance> instances) {
    /** Copies the list when needed. */
    public ServiceSnapshot {
        Objects.requireNonNull(serviceId, "serviceId");
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
