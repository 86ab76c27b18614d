package io.lodestar.redis;

import io.lodestar.test.TestRedis;

/** The discovery contract on a local 3-master Redis Cluster (sharded PubSub, each service in one slot). */
class ClusterDiscoveryIT extends DiscoveryContract {
    @Override
    String redisUri() {
        return TestRedis.cluster().uri();
    }
}
