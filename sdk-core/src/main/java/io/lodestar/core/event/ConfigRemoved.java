package io.lodestar.core.event;

/**
 * A config was removed. Its history is kept, so it can be rolled back.
 *
 * @param configId the config
 * @param version  the version of the removal (one above the last content version)
 */
public record ConfigRemoved(String configId, long version) implements ConfigEvent {
}
