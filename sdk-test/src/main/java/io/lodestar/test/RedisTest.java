package io.lodestar.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Shorthand for {@code @ExtendWith(RedisExtension.class)}: lets test methods, constructors and lifecycle
 * methods take {@link RedisServer} and {@link RedisCluster} parameters.
 *
 * <pre>{@code
 * @RedisTest
 * class RegistryIT {
 *     @Test
 *     void registers(RedisServer redis) { … redis.uri() … }
 * }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@ExtendWith(RedisExtension.class)
public @interface RedisTest {
}
