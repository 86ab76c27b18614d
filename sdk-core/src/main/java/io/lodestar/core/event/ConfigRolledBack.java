package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigEntry;

/**
 * A config was rolled back: an older version's content became current again, under a new version.
 *
 * @param configId    the config
 * @param version     the new version
 * @param fromVersion the historical version whose content was restored
 * @param entry       the now current entry
 */
public record ConfigRolledBack(String configId, long version, long fromVersion, ConfigEntry entry)
        implements ConfigEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public ConfigRolledBack {
        Validation.collector()
                .notNull("configId", configId)
                .notNull("entry", entry)
                .throwIfInvalid();
    }
}
