package io.lodestar.spring;

import io.lodestar.redis.RedisLodestar;

/**
 * Customizes the builder of the auto-configured client before it connects, e.g. to share a scheduler or a thread
 * factory; beans of this type are applied in {@code @Order}.
 */
@FunctionalInterface
public interface LodestarClientBuilderCustomizer {
    /** @param builder the builder, already given the options and Boot's Lettuce {@code ClientResources} if any */
    void customize(RedisLodestar.Builder builder);
}
