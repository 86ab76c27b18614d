package io.lodestar.core.event;

import io.lodestar.core.internal.Validation;
/**
 * A config was removed. Its history is kept, so it can be rolled back.
 *
 * @param configId the config
 * @param version  the version of the removal (one above the last content version)
 */
public record ConfigRemoved(String configId, long version) implements ConfigEvent {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field that must be given is null
     */
    public ConfigRemoved {
        Validation.requireNonNull("configId", configId);
    }
}
