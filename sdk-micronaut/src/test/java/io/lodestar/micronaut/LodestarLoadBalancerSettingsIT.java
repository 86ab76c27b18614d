package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.LoadBalancer;
import io.micronaut.http.client.loadbalance.DiscoveryClientLoadBalancerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@code lodestar.loadbalancer.*} properties the Spring starter takes (the same names, values and messages, as
 * both bind {@code LoadBalancerSettings}) take effect on the balancer behind {@code @Client(id = …)}; instances come
 * from another client of the same namespace on the real test Redis.
 */
class LodestarLoadBalancerSettingsIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final String namespace = Contexts.namespace();
    private final LodestarClient other = Contexts.client(namespace);
    private final List<AutoCloseable> started = new ArrayList<>(List.of(other));

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) { // clients before the servers they talk to
            started.get(i).close();
        }
    }

    @Test
    void thePreferZonePropertyPrefersThatZone() {
        register("a", 100, "zone", "eu-1");
        register("b", 1, "zone", "eu-2");
        LoadBalancer orders = balancer(Map.of("lodestar.loadbalancer.prefer-zone", "eu-2"));

        assertThat(count(50, orders)).isEqualTo(Map.of("b", 50));
    }

    @Test
    void thePreferRegionPropertyPrefersThatRegionOverTheInstancesAFailoverAdds() {
        // given east at home with one instance and west, a remote region, with a heavier one; a failover threshold
        // of 2 adds west's instances to every read while east has fewer than two up
        RedisServer west = TestRedis.startStandalone();
        started.add(west);
        LodestarClient inWest = RedisLodestar.create(LodestarOptions.builder(west.uri()).namespace(namespace)
                .region("west").build());
        started.add(inWest);
        inWest.registry().register(ServiceInstance.builder("orders", "w").host("10.0.0.2").port(8000).weight(1000)
                .build());
        register("e", 1);
        ApplicationContext caller = caller(Map.of("lodestar.region", "east",
                "lodestar.regions.west.redis-uri", west.uri(), "lodestar.region-failover-threshold", "2",
                "lodestar.loadbalancer.prefer-region", "east"));
        await().atMost(WAIT).until(() -> caller.getBean(LodestarClient.class).discovery().getInstances("orders")
                .size() == 2);

        // when / then every call stays in east
        assertThat(count(50, caller.getBean(DiscoveryClientLoadBalancerFactory.class).create("orders")))
                .isEqualTo(Map.of("e", 50));
    }

    @Test
    void theCanaryPercentPropertySendsThatShareToCanaries() {
        register("a", 100);
        register("b", 1, "canary", "true");
        LoadBalancer orders = balancer(Map.of("lodestar.loadbalancer.canary.percent", "100"));

        assertThat(count(50, orders)).isEqualTo(Map.of("b", 50));
    }

    @Test
    void theCanaryHintHeaderSendsARequestSelectedWithItToTheCanaries() {
        register("a", 100);
        register("b", 1, "canary", "true");
        LoadBalancer orders = balancer(Map.of("lodestar.loadbalancer.canary.hint-header", "X-Canary"));
        HttpRequest<?> hinted = HttpRequest.GET("/").header("X-Canary", "true");

        for (int i = 0; i < 20; i++) {
            assertThat(Reactive.single(orders.select(hinted), WAIT).getInstanceId()).contains("b");
            assertThat(Reactive.single(orders.select(null), WAIT).getInstanceId()).contains("a");
        }
    }

    @Test
    void theMetadataPropertiesKeepOnlyInstancesWithThoseEntries() {
        register("a", 1000, "version", "1", "tier", "gold");
        register("b", 1000, "version", "2", "tier", "silver");
        register("c", 1, "version", "2", "tier", "gold");
        LoadBalancer orders = balancer(Map.of("lodestar.loadbalancer.metadata.version", "2",
                "lodestar.loadbalancer.services.orders.metadata.tier", "gold"));

        assertThat(count(50, orders)).isEqualTo(Map.of("c", 50));
    }

    @Test
    void theSlowStartPropertyRampsANewInstanceUp() {
        // given an instance older than the window
        register("a", 100);
        await().atMost(WAIT).until(() -> other.discovery().getInstances("orders").get(0).registeredAt()
                .isBefore(Instant.now().minusSeconds(3)));
        ApplicationContext caller = caller(Map.of("lodestar.loadbalancer.strategy", "weighted-round-robin",
                "lodestar.loadbalancer.slow-start", "3s"));
        LoadBalancer orders = caller.getBean(DiscoveryClientLoadBalancerFactory.class).create("orders");

        // when one of the same weight registers
        register("b", 100);
        await().atMost(WAIT).until(() -> caller.getBean(LodestarClient.class).discovery().getInstances("orders")
                .size() == 2);
        Map<String, Integer> counts = count(101, orders);

        // then it gets a small share of the calls (at its full weight it would get half: 50 or 51)
        assertThat(counts.getOrDefault("b", 0)).isBetween(1, 33);
    }

    @Test
    void aServicesOwnPropertiesOverrideTheGlobalOnes() {
        register("a", 100, "zone", "eu-1");
        register("b", 100, "zone", "eu-2");
        ApplicationContext caller = caller(Map.of("lodestar.loadbalancer.prefer-zone", "eu-1",
                "lodestar.loadbalancer.services.orders.prefer-zone", "eu-2"));
        DiscoveryClientLoadBalancerFactory factory = caller.getBean(DiscoveryClientLoadBalancerFactory.class);

        assertThat(count(20, factory.create("orders"))).isEqualTo(Map.of("b", 20));
    }

    @Test
    void theFormerZonePropertiesStillPreferThatZone() {
        register("a", 100, "zone", "eu-1");
        register("b", 1, "zone", "eu-2");
        register("c", 1, "zone", "eu-3");
        ApplicationContext caller = caller(Map.of("lodestar.loadbalancer.zone", "eu-2",
                "lodestar.loadbalancer.services.billing.zone", "eu-3"));
        DiscoveryClientLoadBalancerFactory factory = caller.getBean(DiscoveryClientLoadBalancerFactory.class);

        assertThat(count(20, factory.create("orders"))).isEqualTo(Map.of("b", 20));
        assertThat(caller.getBean(LodestarLoadBalancerConfiguration.class).getServices().get("billing")
                .getPreferZone()).isEqualTo("eu-3");
    }

    @Test
    void aBadPropertyStopsTheStartNamingItAsSpringDoes() {
        assertThatThrownBy(() -> caller(Map.of("lodestar.loadbalancer.services.orders.slow-start", "25h",
                "lodestar.loadbalancer.canary.percent", "150")))
                .hasStackTraceContaining("lodestar.loadbalancer.services.orders.slow-start must be at most PT24H, "
                        + "but was PT25H")
                .hasStackTraceContaining("lodestar.loadbalancer.canary.percent must be between 0 and 100, "
                        + "but was 150.0");
    }

    private void register(String id, int weight, String... metadata) {
        ServiceInstance.Builder builder = ServiceInstance.builder("orders", id).host("10.0.0.1")
                .port(8000 + id.charAt(0)).weight(weight);
        for (int i = 0; i < metadata.length; i += 2) {
            builder.metadata(metadata[i], metadata[i + 1]);
        }
        other.registry().register(builder.build());
    }

    private LoadBalancer balancer(Map<String, Object> properties) {
        return caller(properties).getBean(DiscoveryClientLoadBalancerFactory.class).create("orders");
    }

    private ApplicationContext caller(Map<String, Object> properties) {
        ApplicationContext context = Contexts.run(namespace, properties);
        started.add(context);
        return context;
    }

    /** Chooses {@code times} times, as the HTTP client does, and counts the chosen instance ids. */
    private static Map<String, Integer> count(int times, LoadBalancer balancer) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < times; i++) {
            counts.merge(Reactive.single(balancer.select(null), WAIT).getInstanceId().orElseThrow(), 1,
                    Integer::sum);
        }
        return counts;
    }
}
