package io.lodestar.cli;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The per-service subscriptions of {@code watch} and the console, against a real Redis: a service that loses its
 * last instance is released, so its Redis channel goes once the SDK's (here short) idle timeout passes.
 */
class ServiceWatchIT {
    private static final Duration BOUND = Duration.ofSeconds(15);
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "watch-" + UUID.randomUUID().toString().substring(0, 8);
    private final ExecutorService subscriber = Executors.newSingleThreadExecutor();
    private LodestarClient watching;
    private LodestarClient registering;
    private ServiceWatch watch;
    private RedisClient raw;
    private StatefulRedisConnection<String, String> redisCli;

    @BeforeEach
    void connect() {
        watching = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .idleViewTimeout(Duration.ofMillis(300)).build());
        registering = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace).build());
        raw = RedisClient.create(redis.uri());
        redisCli = raw.connect();
        watch = new ServiceWatch(watching, subscriber, id -> event -> { });
        watch.start(change -> { });
        watch.watchAll();
    }

    @AfterEach
    void close() {
        watch.close();
        subscriber.shutdownNow();
        watching.close();
        registering.close();
        redisCli.close();
        raw.shutdown();
    }

    /** The shard channels of the service's events that some client of Redis still listens to. */
    private List<String> channelsOf(String service) {
        return redisCli.sync().pubsubShardChannels("lodestar:{" + namespace + ":*").stream()
                .filter(channel -> channel.endsWith(":" + service + ":events")).toList();
    }

    @Test
    void aServiceIsWatchedFromItsFirstInstance() {
        registering.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080)
                .build());

        await("orders watched").atMost(BOUND).untilAsserted(() -> assertThat(watch.services()).contains("orders"));
        assertThat(channelsOf("orders")).hasSize(1);
    }

    @Test
    void aServiceThatLostItsLastInstanceIsReleased() {
        registering.registry().register(ServiceInstance.builder("short-lived", "sl-1").host("10.0.0.7").port(8080)
                .build());
        await("short-lived watched").atMost(BOUND).untilAsserted(() -> assertThat(watch.services())
                .contains("short-lived"));
        registering.close(); // its own view follows the channel too: only the watch's subscription is left
        registering = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace).build());

        registering.registry().deregister("short-lived", "sl-1");

        await("short-lived released").atMost(BOUND).untilAsserted(() -> assertThat(watch.services())
                .doesNotContain("short-lived"));
        await("its channel left").atMost(BOUND).untilAsserted(() -> assertThat(channelsOf("short-lived")).isEmpty());
    }
}
