package io.lodestar.redis;

import io.lettuce.core.ScoredValue;
import io.lodestar.core.LodestarClient;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The expiry bound (TTL plus one sweep interval) holds at any size: a sweep that finds a full batch overdue goes on
 * at once, instead of removing one batch (256) per interval.
 */
class ExpiryAtScaleIT extends NamespaceTest {
    private static final int DEAD = 5_000;
    private static final Duration SWEEP_INTERVAL = Duration.ofSeconds(2);

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void thousandsOfDeadInstancesOfOneServiceExpireInOneSweepRound() {
        // given 5,000 instances whose owners crashed: their deadlines have passed
        Keys.ServiceKeys orders = keys().service("orders");
        Map<String, String> instances = new HashMap<>();
        ScoredValue<?>[] deadlines = new ScoredValue<?>[DEAD];
        long past = System.currentTimeMillis() - 60_000;
        for (int i = 0; i < DEAD; i++) {
            String id = "orders-" + i;
            instances.put(id, Json.instance(instance("orders", id)));
            deadlines[i] = ScoredValue.just(past, id);
        }
        redis().hset(orders.instances(), instances);
        redis().zadd(orders.deadlines(), (ScoredValue<String>[]) deadlines);
        redis().zadd(orders.due(), past, orders.instances()); // as register_instance.lua files them

        // when a client that sweeps every 2 s starts
        LodestarClient sweeper = clients.connect(options -> options.sweepInterval(SWEEP_INTERVAL));
        sweeper.discovery().getInstances("orders");

        // then all of them are gone within a few sweep intervals (one batch per interval would take 20 intervals)
        await().atMost(SWEEP_INTERVAL.multipliedBy(4)).untilAsserted(() ->
                assertThat(instanceIdsInRedis("orders")).isEmpty());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(sweeper.discovery().getInstances("orders")).isEmpty());
    }
}
