package io.lodestar.spring;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.context.config.annotation.RefreshScope;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A change of an imported entry in Redis reaches the running application, through one client. */
class LodestarConfigRefreshIT {
    private static final String NAMESPACE = "spring-config-refresh";
    private final LodestarClient admin = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
            .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build());

    @AfterEach
    void closeAdmin() {
        admin.close();
    }

    @BeforeEach
    void baseEntry() {
        admin.config().set("orders/base", "limits.max-requests=1", ConfigFormat.PROPERTIES);
    }

    @Test
    void aChangeReachesConfigurationPropertiesAndRefreshScopeBeansWithoutARestartOrASecondClient() {
        admin.config().set("orders/live", "limits.max-requests=100", ConfigFormat.PROPERTIES);
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties("spring.config.import=lodestar:orders/live",
                        "lodestar.redis-uri=" + TestRedis.standalone().uri(), "lodestar.namespace=" + NAMESPACE,
                        "lodestar.reconcile-interval=1h", "lodestar.client-name=refresh-it",
                        "lodestar.registration.enabled=false").run()) {
            Limits limits = app.getBean(Limits.class);
            Limit limit = app.getBean(Limit.class);
            assertThat(limits.getMaxRequests()).isEqualTo(100);
            assertThat(limit.max()).isEqualTo(100);

            admin.config().set("orders/live", "limits.max-requests=200", ConfigFormat.PROPERTIES);

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(limits.getMaxRequests()).isEqualTo(200);
                assertThat(limit.max()).isEqualTo(200);
            });
            long connections = connectionsNamed("refresh-it");
            assertThat(connections).as("the client's named connections").isPositive();

            admin.config().set("orders/live", "limits.max-requests=300", ConfigFormat.PROPERTIES);

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(limit.max()).isEqualTo(300));
            assertThat(connectionsNamed("refresh-it")).as("a refresh reuses the client").isEqualTo(connections);
        }
    }

    @Test
    void anOptionalImportCreatedLaterReachesTheRunningApplication() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties(
                        "spring.config.import=lodestar:orders/base,optional:lodestar:orders/later",
                        "lodestar.redis-uri=" + TestRedis.standalone().uri(), "lodestar.namespace=" + NAMESPACE,
                        "lodestar.reconcile-interval=1h", "lodestar.registration.enabled=false").run()) {
            assertThat(app.getEnvironment().getProperty("later.flag")).isNull();

            admin.config().set("orders/later", "later.flag=on", ConfigFormat.PROPERTIES);

            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(app.getEnvironment().getProperty("later.flag")).isEqualTo("on"));
        }
    }

    @Test
    void aChangeWrittenAgainAtVersionOneAfterRedisRestartedEmptyIsApplied() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            try (LodestarClient before = adminOf(redis)) {
                before.config().set("greeting", "limits.max-requests=1", ConfigFormat.PROPERTIES);
                before.config().set("greeting", "limits.max-requests=2", ConfigFormat.PROPERTIES);
                before.config().set("greeting", "limits.max-requests=3", ConfigFormat.PROPERTIES);
            }
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                    .web(WebApplicationType.NONE).properties("spring.config.import=lodestar:greeting",
                            "lodestar.redis-uri=" + redis.uri(), "lodestar.namespace=" + NAMESPACE,
                            "lodestar.reconcile-interval=1h", "lodestar.registration.enabled=false").run()) {
                Limit limit = app.getBean(Limit.class);
                assertThat(limit.max()).isEqualTo(3);

                redis.restart(); // empty: the entry's next write is version 1 again
                try (LodestarClient after = adminOf(redis)) {
                    assertThat(after.config().set("greeting", "limits.max-requests=4", ConfigFormat.PROPERTIES).version())
                            .isEqualTo(1);
                }

                await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(limit.max()).isEqualTo(4));
            }
        }
    }

    @Test
    void refreshBacksOffWhenSwitchedOff() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties("spring.config.import=lodestar:orders/base",
                        "lodestar.redis-uri=" + TestRedis.standalone().uri(), "lodestar.namespace=" + NAMESPACE,
                        "lodestar.reconcile-interval=1h", "lodestar.registration.enabled=false",
                        "lodestar.config.refresh.enabled=false").run()) {
            assertThat(app.getBeanNamesForType(LodestarConfigRefresher.class)).isEmpty();
            assertThat(app.getEnvironment().getProperty("limits.max-requests")).isEqualTo("1");
        }
    }

    private static LodestarClient adminOf(RedisServer redis) {
        return RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(NAMESPACE)
                .reconcileInterval(Duration.ofHours(1)).build());
    }

    private static long connectionsNamed(String prefix) {
        RedisClient redis = RedisClient.create(TestRedis.standalone().uri());
        try (StatefulRedisConnection<String, String> connection = redis.connect()) {
            return Arrays.stream(connection.sync().clientList().split("\n"))
                    .filter(line -> line.contains(" name=" + prefix)).count();
        } finally {
            redis.shutdown();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableConfigurationProperties(Limits.class)
    static class App {
        @Bean
        @RefreshScope
        Limit limit(@Value("${limits.max-requests}") int max) {
            return new Limit(max);
        }
    }

    @ConfigurationProperties("limits")
    static class Limits {
        private int maxRequests;

        public int getMaxRequests() {
            return maxRequests;
        }

        public void setMaxRequests(int maxRequests) {
            this.maxRequests = maxRequests;
        }
    }

    static class Limit {
        private final int max;

        Limit(int max) {
            this.max = max;
        }

        int max() {
            return max;
        }
    }
}
