package io.lodestar.redis;

import io.lodestar.test.TestRedis;

/** The discovery contract on a standalone Redis. */
class StandaloneDiscoveryIT extends DiscoveryContract {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }
}
