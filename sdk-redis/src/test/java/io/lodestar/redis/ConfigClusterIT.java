package io.lodestar.redis;

import io.lodestar.test.TestRedis;

/** The config contract on a local 3-master Redis Cluster (one slot per config entry, the index in another). */
class ConfigClusterIT extends ConfigContract {
    @Override
    String redisUri() {
        return TestRedis.cluster().uri();
    }
}
