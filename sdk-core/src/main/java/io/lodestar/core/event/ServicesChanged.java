package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;

import java.util.Set;

/**
 * The set of services in a namespace changed: a service got its first instance, or lost its last one.
 *
 * @param services the services that have instances now, unmodifiable
 * @param added    services that appeared with this change
 * @param removed  services that disappeared with this change
 */
public record ServicesChanged(Set<String> services, Set<String> added, Set<String> removed) {
    /**
     * Copies the sets.
     *
     * @throws io.lodestar.core.InvalidArgumentException when a set is null or holds null
     */
    public ServicesChanged {
        Validation.collector()
                .elements("services", services)
                .elements("added", added)
                .elements("removed", removed)
                .throwIfInvalid();
        services = Set.copyOf(services);
        added = Set.copyOf(added);
        removed = Set.copyOf(removed);
    }
}
