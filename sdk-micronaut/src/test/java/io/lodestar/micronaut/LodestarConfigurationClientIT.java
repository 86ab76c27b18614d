package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import io.lodestar.core.model.ConfigFormat;
import io.micronaut.context.ApplicationContext;
import io.micronaut.discovery.config.ConfigurationClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Distributed configuration through Micronaut's bootstrap context (micronaut-discovery-client's locator calls the
 * {@link ConfigurationClient}), and live refresh when a config changes in Redis.
 */
class LodestarConfigurationClientIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final String namespace = Contexts.namespace();
    private final LodestarClient operator = Contexts.client(namespace);

    @AfterEach
    void closeOperator() {
        operator.close();
    }

    @Test
    void theConfiguredIdsBecomePropertiesAndALaterIdOverridesAnEarlierOneKeyByKey() {
        operator.config().set("shared", "greeting=hello\nshop.max-items=5\nshared.only=yes", ConfigFormat.PROPERTIES);
        operator.config().set("orders", "shop.max-items=7", ConfigFormat.PROPERTIES);

        try (ApplicationContext context = start(List.of("shared", "orders"))) {
            assertThat(context.getProperty("greeting", String.class)).contains("hello");
            assertThat(context.getProperty("shared.only", String.class)).contains("yes");
            assertThat(context.getBean(ShopProperties.class).getMaxItems()).isEqualTo(7);
        }
    }

    @Test
    void aChangeInRedisReachesRefreshableAndConfigurationPropertiesBeans() {
        operator.config().set("orders", "greeting=hello\nshop.max-items=5", ConfigFormat.PROPERTIES);
        try (ApplicationContext context = start(List.of("orders"))) {
            RefreshableGreeter greeter = context.getBean(RefreshableGreeter.class);
            ShopProperties shop = context.getBean(ShopProperties.class);
            assertThat(greeter.greeting()).isEqualTo("hello");
            assertThat(shop.getMaxItems()).isEqualTo(5);

            operator.config().set("orders", "greeting=bonjour\nshop.max-items=9", ConfigFormat.PROPERTIES);

            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(greeter.greeting()).isEqualTo("bonjour");
                assertThat(context.getBean(ShopProperties.class).getMaxItems()).isEqualTo(9);
            });
        }
    }

    @Test
    void aChangeWrittenAgainAtVersionOneAfterRedisRestartedEmptyIsApplied() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            try (LodestarClient before = clientOf(redis)) {
                before.config().set("orders", "shop.max-items=1", ConfigFormat.PROPERTIES);
                before.config().set("orders", "shop.max-items=2", ConfigFormat.PROPERTIES);
                before.config().set("orders", "shop.max-items=3", ConfigFormat.PROPERTIES);
            }
            Map<String, Object> properties = new HashMap<>(Contexts.properties(namespace, Map.of(
                    "micronaut.config-client.enabled", "true", "lodestar.config.ids", List.of("orders"))));
            properties.put("lodestar.redis-uri", redis.uri());
            try (ApplicationContext context = ApplicationContext.builder().properties(properties).start()) {
                assertThat(context.getBean(ShopProperties.class).getMaxItems()).isEqualTo(3);

                redis.restart(); // empty: the entry's next write is version 1 again
                try (LodestarClient after = clientOf(redis)) {
                    assertThat(after.config().set("orders", "shop.max-items=4", ConfigFormat.PROPERTIES).version())
                            .isEqualTo(1);
                }

                await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                        assertThat(context.getBean(ShopProperties.class).getMaxItems()).isEqualTo(4));
            }
        }
    }

    @Test
    void redisDownAtStartUpFailsTheStartSayingWhatToDo() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            redis.kill();
            Map<String, Object> properties = new HashMap<>(Contexts.properties(namespace, Map.of(
                    "micronaut.config-client.enabled", "true", "lodestar.config.ids", List.of("orders"))));
            properties.put("lodestar.redis-uri", redis.uri());

            assertThatThrownBy(() -> ApplicationContext.builder().properties(properties).start())
                    .hasStackTraceContaining("lodestar.config.ids [orders]")
                    .hasStackTraceContaining("namespace '" + namespace + "'")
                    .hasStackTraceContaining("micronaut.config-client.enabled: false")
                    .hasStackTraceContaining("lodestar.config-snapshot-directory");
        }
    }

    @Test
    void aTextConfigFailsTheStartUpNamingItAndTheFix() {
        operator.config().set("notes", "just words", ConfigFormat.TEXT);

        assertThatThrownBy(() -> start(List.of("notes")))
                .hasStackTraceContaining("Lodestar config 'notes' is TEXT")
                .hasStackTraceContaining("lodestar.config.ids");
    }

    @Test
    void withoutConfigClientEnabledNothingIsLoaded() {
        operator.config().set("orders", "greeting=hello", ConfigFormat.PROPERTIES);

        try (ApplicationContext context = Contexts.run(namespace, Map.of("lodestar.config.ids", List.of("orders")))) {
            assertThat(context.getProperty("greeting", String.class)).isEmpty();
            assertThat(context.findBean(LodestarConfigRefresher.class)).isEmpty();
        }
    }

    @Test
    void configEnabledFalseKeepsLodestarOutOfTheConfigurationClients() {
        operator.config().set("orders", "greeting=hello", ConfigFormat.PROPERTIES);

        try (ApplicationContext context = start(List.of("orders"), Map.of("lodestar.config.enabled", "false"))) {
            assertThat(context.getProperty("greeting", String.class)).isEmpty();
            assertThat(context.findBean(LodestarConfigRefresher.class)).isEmpty();
        }
    }

    private LodestarClient clientOf(RedisServer redis) {
        return RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .reconcileInterval(Duration.ofHours(12)).build());
    }

    private ApplicationContext start(List<String> ids) {
        return start(ids, Map.of());
    }

    private ApplicationContext start(List<String> ids, Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(extra);
        properties.put("micronaut.config-client.enabled", "true");
        properties.put("lodestar.config.ids", ids);
        return ApplicationContext.builder().properties(Contexts.properties(namespace, properties)).start();
    }
}
