package io.lodestar.core;

import io.lodestar.core.model.ConfigEntry;

import java.util.Optional;

/**
 * Reads the current entry of a config. {@link ConfigService} answers from the client's local view, kept current by
 * PubSub; {@link LodestarClient#directConfig()} asks Redis on every call. Both answer alike: the entry as the last
 * write left it, or empty when it was never set or was removed.
 */
public interface ConfigReader {
    /**
     * @param configId the config id
     * @return the current entry, if any
     * @throws InvalidArgumentException when {@code configId} is not a valid config id
     * @throws UnavailableException     when Redis is needed and cannot be reached
     * @throws ClientClosedException    when the client was closed
     */
    Optional<ConfigEntry> get(String configId);
}
