package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisSentinel;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel deployment through one {@code redis-sentinel://host:port#master} URI: the client asks the sentinel
 * where the master is, and asks again when it reconnects after the master crashed.
 */
class SentinelIT {
    private static final Duration CONVERGENCE = Duration.ofSeconds(10);

    private RedisSentinel sentinel;
    private Clients clients;

    @BeforeEach
    void privateSentinel() {
        sentinel = TestRedis.startSentinel();
        clients = new Clients(sentinel.uri());
    }

    @AfterEach
    void stopSentinel() {
        clients.close();
        sentinel.close();
    }

    @Test
    void registersDiscoversAndListensThroughTheSentinelUri() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> !reader.discovery().status().stale());

        writer.registry().register(instance("orders", "orders-1"));
        writer.registry().setMetadata("orders", "orders-1", Map.of("zone", "eu-1"));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(events).hasSize(2));
        assertThat(events.get(0)).isInstanceOf(InstanceRegistered.class);
        assertThat(events.get(1)).isInstanceOf(InstanceUpdated.class);
        assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1");
        assertThat(reader.discovery().getServices()).containsExactly("orders");
        assertThat(reader.directDiscovery().getInstances("orders"))
                .isEqualTo(reader.discovery().getInstances("orders"));
        // the data is on the master the sentinel named
        try (RedisClient raw = RedisClient.create(sentinel.master().uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            assertThat(connection.sync().keys("lodestar:{" + clients.namespace() + "*")).isNotEmpty();
        }
    }

    @Test
    void afterTheMasterIsKilledAndRestartedClientsHealThroughTheSentinel() {
        LodestarClient owner = clients.connect();
        LodestarClient reader = clients.connect();
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(2)).build());
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().getInstances("orders").size() == 1);

        sentinel.master().kill();

        await().atMost(CONVERGENCE).until(() -> reader.discovery().status().stale());
        assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1");
        assertThatThrownBy(() -> owner.registry().register(instance("orders", "orders-2")))
                .isInstanceOf(UnavailableException.class);

        sentinel.master().restart(); // same address, empty; the sentinel reports it up again

        // the renewal brings orders-1 back into the empty master, a new write works, every view converges
        await().atMost(CONVERGENCE).ignoreExceptionsInstanceOf(UnavailableException.class).untilAsserted(() -> {
            assertThat(reader.discovery().status().stale()).isFalse();
            assertThat(owner.discovery().status().stale()).isFalse();
            owner.registry().register(instance("orders", "orders-2"));
            List<ServiceInstance> truth = owner.directDiscovery().getInstances("orders");
            assertThat(truth).extracting(ServiceInstance::instanceId).containsExactly("orders-1", "orders-2");
            assertThat(reader.discovery().getInstances("orders")).isEqualTo(truth);
            assertThat(owner.discovery().getInstances("orders")).isEqualTo(truth);
        });
    }
}
