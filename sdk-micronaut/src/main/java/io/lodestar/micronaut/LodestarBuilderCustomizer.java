package io.lodestar.micronaut;

import io.lodestar.redis.RedisLodestar;

/**
 * Adjusts the builder of the {@link io.lodestar.core.LodestarClient} bean before it connects: declare one as a bean
 * to share Lettuce {@code ClientResources}, a scheduler or a thread factory with the client. Whatever is passed in
 * stays the application's: the client never closes it. Applied in bean order.
 */
@FunctionalInterface
public interface LodestarBuilderCustomizer {
    /**
     * @param builder the builder, options already set from {@code lodestar.*}
     */
    void customize(RedisLodestar.Builder builder);
}
