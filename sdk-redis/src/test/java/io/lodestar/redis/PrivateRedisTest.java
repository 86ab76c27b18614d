package io.lodestar.redis;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;

/** Base of fault tests: each test gets a private Redis it may kill, restart or disconnect. */
abstract class PrivateRedisTest extends NamespaceTest {
    RedisServer redis;

    @Override
    String redisUri() {
        if (redis == null) { // one per test: JUnit makes a new instance for every test method
            redis = TestRedis.startStandalone();
        }
        return redis.uri();
    }

    /**
     * Runs before the base class's: clients close (and deregister) while their Redis still runs, and so does the
     * test's plain connection (see {@link #closeRawConnection()}): stopping Redis under it made its watchdog schedule
     * a reconnect that raced the shutdown of its resources, a WARN in the test's output.
     */
    @AfterEach
    void stopRedis() {
        clients.close();
        closeRawConnection();
        redis.close();
    }
}
