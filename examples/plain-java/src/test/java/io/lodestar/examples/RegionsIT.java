package io.lodestar.examples;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The regions example fails over to the other region and back, as it prints. */
class RegionsIT {
    @Test
    void theCallerFailsOverToTheOtherRegionAndBack() {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (RedisServer euWest = TestRedis.startStandalone(); RedisServer usEast = TestRedis.startStandalone()) {
            Regions.failover(euWest.uri(), usEast.uri(), seen::add); // private: the example uses namespace default
        }

        assertThat(seen).containsExactly("both regions up: [orders-eu-1 (eu-west)]",
                "eu-west empty:   [orders-us-1 (us-east)]", "eu-west back:    [orders-eu-2 (eu-west)]");
    }
}
