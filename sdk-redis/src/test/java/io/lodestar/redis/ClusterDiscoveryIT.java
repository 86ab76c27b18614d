package io.lodestar.redis;

import io.lodestar.test.TestRedis;

/** The discovery contract on a local 3-master Redis Cluster (sharded PubSub, one slot per service). */
class ClusterDiscoveryIT extends DiscoveryContract {
    @Override
    String redisUri() {
        return TestRedis.cluster().uri();
    }
}
