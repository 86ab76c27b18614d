/**
 * The test kit: real Redis servers for tests, never a mock. {@link io.lodestar.test.RedisTest} (and
 * {@link io.lodestar.test.Private} for a server of a test's own) injects a {@link io.lodestar.test.RedisServer},
 * {@link io.lodestar.test.RedisCluster} or {@link io.lodestar.test.RedisSentinel}; {@code SourceResolver} picks
 * where they come from, in this order: {@code LODESTAR_TEST_REDIS_URI}, a {@code redis-server} on the PATH on a free
 * port, the binary in {@code org.signal:embedded-redis}, Testcontainers where Docker runs. Servers can be killed,
 * restarted, frozen and thawed, and clusters failed over, so tests can prove how views converge.
 */
package io.lodestar.test;
