package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two regions, each with its own Redis: {@code orders} runs in both; a caller at home in east, which names west by
 * {@code lodestar.regions.west.redis-uri}, calls it through {@code @Client(id = "orders")} and fails over to west
 * when east has none left.
 */
class LodestarRegionsIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final String namespace = Contexts.namespace();
    private final RedisServer west = TestRedis.startStandalone();
    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        west.close();
    }

    @Test
    void callsThroughClientIdFailOverToTheRemoteRegionWhenHomeHasNoneLeft() {
        server("in-west", Map.of("lodestar.redis-uri", west.uri(), "lodestar.region", "west"));
        EmbeddedServer inEast = server("in-east", Map.of("lodestar.region", "east"));
        ApplicationContext caller = Contexts.run(namespace, Map.of("lodestar.region", "east",
                "lodestar.regions.west.redis-uri", west.uri()));
        started.add(caller);
        OrdersClient orders = caller.getBean(OrdersClient.class);
        assertThat(caller.getBean(LodestarClient.class).regions()).containsExactly("east", "west");
        await().atMost(WAIT).until(() -> orders.whoami().equals("in-east")
                && caller.getBean(LodestarClient.class).discovery("west").heldSnapshots().containsKey("orders"));

        inEast.getApplicationContext().getBean(LodestarClient.class).deregisterAll();

        await().atMost(WAIT).until(() -> orders.whoami().equals("in-west"));
    }

    private EmbeddedServer server(String name, Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "micronaut.application.name", "orders",
                "micronaut.server.port", "-1",
                "test.instance-name", name));
        properties.putAll(extra);
        EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, Contexts.properties(namespace,
                properties));
        started.add(server);
        return server;
    }
}
