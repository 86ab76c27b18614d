package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarClientFactory;
import io.lodestar.core.LodestarOptions;

/** The service-provider entry that lets {@code Lodestar.connect(...)} find this module. Not for direct use. */
public final class RedisLodestarFactory implements LodestarClientFactory {
    /** Required by {@link java.util.ServiceLoader}. */
    public RedisLodestarFactory() {
    }

    @Override
    public LodestarClient create(LodestarOptions options) {
        return RedisLodestar.create(options);
    }
}
