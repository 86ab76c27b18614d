package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a cluster too, a client opens its PubSub connection when a view first subscribes: a client that never watches
 * (a CLI command, a job that only registers or reads Redis directly) holds only its cluster connection's.
 */
class ClusterPubSubOnDemandIT extends NamespaceTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    @Override
    String redisUri() {
        return TestRedis.cluster().uri();
    }

    @Test
    void aClientThatOnlyWritesAndReadsDirectlyOpensNoPubSubConnection() {
        // given a client that registers instances of services on every master and reads them from Redis directly
        String name = "on-demand-" + clients.namespace();
        LodestarClient client = clients.connect(options -> options.clientName(name));
        for (int i = 0; i < 20; i++) {
            client.registry().register(instance("svc" + i, "svc" + i + "-1"));
            assertThat(client.directDiscovery().getInstances("svc" + i)).hasSize(1);
        }

        // then it holds a command connection per master and the cluster connection's default one, nothing more
        // (its PubSub connection would add the cluster PubSub connection's own default connection)
        assertThat(connectionsNamed(name)).isEqualTo(4);
        assertThat(client.health().healthy()).isTrue();
    }

    @Test
    void theFirstViewOpensThePubSubConnectionAndHearsChanges() {
        // given a client that has not watched anything yet
        String name = "on-demand-" + clients.namespace();
        LodestarClient client = clients.connect(options -> options.clientName(name));
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-0"));
        assertThat(client.directDiscovery().getInstances("orders")).hasSize(1);
        long before = connectionsNamed(name);

        // when it subscribes to a service, and another client then registers an instance of it
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        client.discovery().subscribe("orders", heard::add);
        writer.registry().register(instance("orders", "orders-1"));

        // then it opened PubSub connections, hears the registration and its view holds both instances
        await().atMost(BOUND).until(() -> heard.stream().anyMatch(InstanceRegistered.class::isInstance));
        assertThat(connectionsNamed(name)).isGreaterThan(before);
        assertThat(client.discovery().getInstances("orders")).hasSize(2);
        assertThat(client.health().healthy()).isTrue();
    }

    /** The connections of every master whose client name is {@code name}. */
    private static long connectionsNamed(String name) {
        long named = 0;
        RedisClient stats = RedisClient.create();
        try {
            for (RedisServer master : TestRedis.cluster().masters()) {
                try (StatefulRedisConnection<String, String> connection = stats.connect(RedisURI.create(master.uri()))) {
                    named += connection.sync().clientList().lines().filter(line -> line.contains(" name=" + name + " "))
                            .count();
                }
            }
        } finally {
            stats.shutdown();
        }
        return named;
    }
}
