package io.lodestar.core.event;

import java.util.Set;

/**
 * The set of services in a namespace changed: a service got its first instance, or lost its last one.
 *
 * @param services the services that have instances now, unmodifiable
 * @param added    services that appeared with this change
 * @param removed  services that disappeared with this change
 */
public record ServicesChanged(Set<String> services, Set<String> added, Set<String> removed) {
    /** Copies the sets. */
    public ServicesChanged {
        services = Set.copyOf(services);
        added = Set.copyOf(added);
        removed = Set.copyOf(removed);
    }
}
