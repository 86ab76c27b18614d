package io.lodestar.redis;

import io.lodestar.test.TestRedis;

/** Gray releases and the audit trail on a standalone Redis. */
class ConfigGrayStandaloneIT extends ConfigGrayContract {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }
}
