package io.lodestar.redis;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;

/** Purges on a local Redis Cluster: a service's or config's keys in their slot, the index entry in another. */
class PurgeClusterIT extends PurgeContract {
    private RedisClusterClient rawClient;
    private StatefulRedisClusterConnection<String, String> rawConnection;

    @Override
    String redisUri() {
        return TestRedis.cluster().uri();
    }

    @Override
    RedisClusterCommands<String, String> raw() {
        if (rawConnection == null) {
            rawClient = RedisClusterClient.create(ClientSettings.clusterSeeds(redisUri(), "purge-test"));
            rawConnection = rawClient.connect();
        }
        return rawConnection.sync();
    }

    @AfterEach
    void closeRaw() {
        if (rawConnection != null) {
            rawConnection.close();
            rawClient.shutdown();
        }
    }
}
