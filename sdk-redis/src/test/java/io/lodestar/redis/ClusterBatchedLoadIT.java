package io.lodestar.redis;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;

import java.util.List;

/** Batched loads and paged reads on a local 3-master Redis Cluster (batches of one bucket: one slot each). */
class ClusterBatchedLoadIT extends BatchedLoadContract {
    @Override
    String redisUri() {
        return TestRedis.cluster().uri();
    }

    @Override
    List<String> nodeUris() {
        return TestRedis.cluster().masters().stream().map(RedisServer::uri).toList();
    }
}
