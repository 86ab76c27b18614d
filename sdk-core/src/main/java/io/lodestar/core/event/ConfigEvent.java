package io.lodestar.core.event;

/**
 * A change of one config entry. Every event carries the entry's new version (its revision): listeners of one
 * config are called once per version, in order.
 */
public sealed interface ConfigEvent permits ConfigChanged, ConfigRemoved, ConfigRolledBack {
    /** @return the config that changed */
    String configId();

    /** @return the version this event was produced at */
    long version();
}
