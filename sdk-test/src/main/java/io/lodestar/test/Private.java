package io.lodestar.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@link RedisServer} or {@link RedisCluster} parameter resolved by {@link RedisExtension} as private:
 * a fresh server or cluster just for this test (or class, for {@code @BeforeAll} and constructor parameters
 * of a per-class instance), closed by the extension afterwards. Use it for fault injection
 * ({@code kill()}, {@code restart()}), which would disturb other tests on the shared one.
 *
 * <pre>{@code
 * @Test
 * void reconnectsAfterCrash(@Private RedisServer redis) {
 *     redis.kill();
 *     redis.restart();
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Private {
}
