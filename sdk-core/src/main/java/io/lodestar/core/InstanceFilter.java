package io.lodestar.core;

import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

/**
 * Which instances of a service a read returns. A local view keeps the filtered list per snapshot, so a read with
 * a filter is as cheap as one without, and returns the same list object until the service changes (load balancers
 * may key their work on list identity).
 */
public enum InstanceFilter {
    /** Every registered instance, whatever its status. */
    ALL,
    /** Only instances whose status is {@link InstanceStatus#UP}: the ones to send traffic to. */
    UP;

    /**
     * @param instance an instance
     * @return whether this filter keeps it
     */
    public boolean test(ServiceInstance instance) {
        return this == ALL || instance.status() == InstanceStatus.UP;
    }
}
