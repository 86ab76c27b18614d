/**
 * Time, scheduling and backoff for the engine: the one place the view and the lease timer take time from.
 *
 * <p><b>Not an API.</b> Everything under {@code io.lodestar.redis.internal} may change in any release; it is public
 * only so the engine's packages can share it. Production code uses {@link io.lodestar.redis.internal.time.Clock#system};
 * tests advance a manual clock instead of waiting.
 */
package io.lodestar.redis.internal.time;
