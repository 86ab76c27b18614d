package io.lodestar.redis;

import io.lodestar.core.InstanceFilter;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.util.List;
import java.util.Optional;

/**
 * A discovery whose instance reads all come from its {@link #getSnapshot}: the view's, the direct reader's, the
 * regions'. Each says only how it reads a snapshot and how it filters one.
 */
abstract class SnapshotDiscovery implements ServiceDiscovery {
    @Override
    public List<ServiceInstance> getInstances(String serviceId) {
        return getSnapshot(serviceId).instances();
    }

    @Override
    public List<ServiceInstance> getInstances(String serviceId, InstanceFilter filter) {
        Validation.requireNonNull("filter", filter);
        return filter(getSnapshot(serviceId), filter);
    }

    @Override
    public Optional<ServiceInstance> getInstance(String serviceId, String instanceId) {
        Validation.requireInstanceId(instanceId); // before the service is read: bad input gets the same answer from all
        return AsyncDiscovery.find(getSnapshot(serviceId), instanceId);
    }

    /** The instances of a snapshot the filter keeps; computed each time unless an implementation keeps them. */
    List<ServiceInstance> filter(ServiceSnapshot snapshot, InstanceFilter filter) {
        return AsyncDiscovery.keep(snapshot, filter);
    }
}
