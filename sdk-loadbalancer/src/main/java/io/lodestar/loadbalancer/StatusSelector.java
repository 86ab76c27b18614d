package io.lodestar.loadbalancer;

import io.lodestar.core.model.InstanceStatus;

import java.util.Set;

/**
 * Keeps the instances whose status is allowed. Its own class so the builder can tell whether the user placed a
 * status filter (otherwise it puts {@link Selectors#healthyOnly()} first).
 */
final class StatusSelector extends FilterSelector {
    StatusSelector(Set<InstanceStatus> allowed) {
        super("status", allowed.size() == 1 ? "status=" + allowed.iterator().next() : "status in " + allowed,
                instance -> allowed.contains(instance.status()));
    }
}
