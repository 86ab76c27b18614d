package io.lodestar.redis;

import io.lodestar.core.ConfigReader;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigEntry;

import java.util.Optional;

/**
 * Config reads that ask Redis on every call ({@code LodestarClient.directConfig()}): the script a view loads an entry
 * with (read_config.lua), so the answer is the one {@code config().get} gives once its view is current. Holds
 * nothing, subscribes to nothing.
 */
final class DirectConfigReader implements ConfigReader {
    private final ConfigReads reads;
    private final ConfigCodec codec;
    private final RedisBackend backend;

    DirectConfigReader(ConfigReads reads, ConfigCodec codec, RedisBackend backend) {
        this.reads = reads;
        this.codec = codec;
        this.backend = backend;
    }

    @Override
    public Optional<ConfigEntry> get(String configId) {
        Validation.requireConfigId(configId);
        return Await.join(reads.entry(configId), () -> "read config '" + configId + "'", backend).value()
                .map(codec::decode);
    }
}
