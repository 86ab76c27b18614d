package io.lodestar.redis;

import io.lodestar.test.TestRedis;

/** Gray releases and the audit trail on a 3-master cluster: every key of a script shares the config's hash tag. */
class ConfigGrayClusterIT extends ConfigGrayContract {
    @Override
    String redisUri() {
        return TestRedis.cluster().uri();
    }
}
