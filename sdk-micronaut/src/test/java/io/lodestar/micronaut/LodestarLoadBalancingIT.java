package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.loadbalancer.NoInstanceAvailableException;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.client.loadbalance.DiscoveryClientLoadBalancerFactory;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Two real servers register as {@code orders} with weights 1 and 3; a third application calls them through
 * {@code @Client(id = "orders")}, which chooses with Lodestar's balancer.
 */
class LodestarLoadBalancingIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Chi-square, one degree of freedom, p = 0.001: a correct split fails this once in a thousand seeds. */
    private static final double CHI_SQUARE_CRITICAL = 10.83;

    private final String namespace = Contexts.namespace();
    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closeable : started) {
            closeable.close();
        }
    }

    @Test
    void callsThroughClientIdSplitByTheRegisteredWeights() {
        server("light", 1);
        server("heavy", 3);
        OrdersClient orders = caller(Map.of("lodestar.loadbalancer.seed", "42")).getBean(OrdersClient.class);

        Map<String, Integer> served = new HashMap<>();
        for (int i = 0; i < 1000; i++) {
            served.merge(orders.whoami(), 1, Integer::sum);
        }

        assertThat(served).containsOnlyKeys("light", "heavy");
        double chiSquare = chiSquare(served.get("light"), 250) + chiSquare(served.get("heavy"), 750);
        assertThat(chiSquare).as("chi-square of %s against 250/750", served).isLessThan(CHI_SQUARE_CRITICAL);
    }

    @Test
    void aPerServiceOverrideReplacesTheGlobalStrategyForThatServiceOnly() {
        server("light", 1);
        server("heavy", 3);
        OrdersClient orders = caller(Map.of(
                "lodestar.loadbalancer.strategy", "WEIGHTED_RANDOM",
                "lodestar.loadbalancer.services.orders.strategy", "ROUND_ROBIN")).getBean(OrdersClient.class);

        Map<String, Integer> served = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            served.merge(orders.whoami(), 1, Integer::sum);
        }

        assertThat(served).containsEntry("light", 50).containsEntry("heavy", 50); // weights ignored, in turn
    }

    @Test
    void anInstanceOutOfServiceGetsNoMoreCalls() {
        EmbeddedServer light = server("light", 1);
        server("heavy", 3);
        ApplicationContext caller = caller(Map.of());
        OrdersClient orders = caller.getBean(OrdersClient.class);
        LodestarClient lightClient = light.getApplicationContext().getBean(LodestarClient.class);

        lightClient.drain();

        await().atMost(WAIT).untilAsserted(() -> {
            for (int i = 0; i < 50; i++) {
                assertThat(orders.whoami()).isEqualTo("heavy");
            }
        });
    }

    @Test
    void noInstanceFailsTheCallWithLodestarsExplanation() {
        OrdersClient orders = caller(Map.of()).getBean(OrdersClient.class);

        assertThatThrownBy(orders::whoami).hasRootCauseInstanceOf(NoInstanceAvailableException.class);
    }

    @Test
    void loadbalancerEnabledFalseLeavesMicronautsOwnFactory() {
        ApplicationContext caller = caller(Map.of("lodestar.loadbalancer.enabled", "false"));

        assertThat(caller.getBean(DiscoveryClientLoadBalancerFactory.class))
                .isNotInstanceOf(LodestarLoadBalancerFactory.class);
        assertThat(caller(Map.of()).getBean(DiscoveryClientLoadBalancerFactory.class))
                .isInstanceOf(LodestarLoadBalancerFactory.class);
    }

    private static double chiSquare(int observed, double expected) {
        return (observed - expected) * (observed - expected) / expected;
    }

    private EmbeddedServer server(String name, int weight) {
        EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, Contexts.properties(namespace, Map.of(
                "micronaut.application.name", "orders",
                "micronaut.server.port", "-1",
                "test.instance-name", name,
                "lodestar.registration.weight", String.valueOf(weight))));
        started.add(server);
        return server;
    }

    private ApplicationContext caller(Map<String, Object> extra) {
        ApplicationContext context = Contexts.run(namespace, extra);
        started.add(context);
        return context;
    }
}
