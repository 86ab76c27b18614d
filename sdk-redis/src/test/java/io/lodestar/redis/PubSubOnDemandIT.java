package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Standalone, a client opens its PubSub connection when a view first subscribes: a client that never watches (a
 * CLI command, a job that only registers or reads Redis directly) holds one connection, and starts faster.
 */
class PubSubOnDemandIT extends PrivateRedisTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    @Test
    void aClientThatOnlyWritesAndReadsDirectlyHoldsOneConnection() {
        // given a client that registers an instance and reads the service from Redis directly
        long before = connections();
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        assertThat(client.directDiscovery().getInstances("orders")).hasSize(1);

        // then it holds one connection to Redis (no PubSub connection), and is healthy
        assertThat(connections()).isEqualTo(before + 1);
        assertThat(client.health().healthy()).isTrue();
    }

    @Test
    void theFirstViewOpensThePubSubConnectionAndHearsChanges() {
        // given a client that has not watched anything yet
        LodestarClient client = clients.connect();
        LodestarClient writer = clients.connect();
        long before = connections();

        // when it subscribes to a service, and another client then registers an instance of it
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        client.discovery().subscribe("orders", heard::add);
        writer.registry().register(instance("orders", "orders-1"));

        // then it opened its PubSub connection, hears the registration and its view holds the instance
        await().atMost(BOUND).until(() -> heard.stream().anyMatch(InstanceRegistered.class::isInstance));
        assertThat(connections()).isEqualTo(before + 1);
        assertThat(client.discovery().getInstances("orders")).extracting(i -> i.instanceId())
                .containsExactly("orders-1");
    }

    @Test
    void aViewThatFirstSubscribesAfterRedisRestartedStillOpensItsConnection() {
        // given a client connected before Redis restarted, with no PubSub connection yet
        LodestarClient client = clients.connect();
        redis.restart();
        await().atMost(BOUND).until(() -> client.health().healthy());

        // when it then reads a service from a view while another client registers an instance of it
        client.discovery().getInstances("orders");
        clients.connect().registry().register(instance("orders", "orders-1"));

        // then the view catches up
        await().atMost(BOUND).until(() -> client.discovery().getInstances("orders").size() == 1);
    }

    /** Every connection Redis has, this test's own included (opened by the first call). */
    private long connections() {
        return redis().clientList().lines().filter(line -> !line.isBlank()).count();
    }
}
