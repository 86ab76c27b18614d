package io.lodestar.redis;

import io.lodestar.test.TestRedis;

import java.util.List;

/** Batched loads and paged reads on a standalone Redis (batches of any services). */
class StandaloneBatchedLoadIT extends BatchedLoadContract {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Override
    List<String> nodeUris() {
        return List.of(redisUri());
    }
}
