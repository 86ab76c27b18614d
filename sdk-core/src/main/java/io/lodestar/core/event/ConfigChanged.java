package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigEntry;

/**
 * A config was set to new content (created or updated).
 *
 * @param configId the config
 * @param version  the new version
 * @param entry    the new content, version and hash
 */
public record ConfigChanged(String configId, long version, ConfigEntry entry) implements ConfigEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public ConfigChanged {
        Validation.collector()
                .notNull("configId", configId)
                .notNull("entry", entry)
                .throwIfInvalid();
    }
}
