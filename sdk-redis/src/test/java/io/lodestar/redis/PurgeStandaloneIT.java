package io.lodestar.redis;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lodestar.test.TestRedis;

/** Purges on a standalone Redis. */
class PurgeStandaloneIT extends PurgeContract {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Override
    RedisClusterCommands<String, String> raw() {
        return redis();
    }
}
