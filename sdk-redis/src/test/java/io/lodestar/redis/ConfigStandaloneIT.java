package io.lodestar.redis;

import io.lodestar.test.TestRedis;

/** The config contract on a standalone Redis. */
class ConfigStandaloneIT extends ConfigContract {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }
}
