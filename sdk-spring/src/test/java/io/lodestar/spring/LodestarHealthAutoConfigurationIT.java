package io.lodestar.spring;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LodestarHealthAutoConfigurationIT {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LodestarAutoConfiguration.class,
                    LodestarHealthAutoConfiguration.class))
            .withPropertyValues("lodestar.namespace=spring-health", "lodestar.reconcile-interval=1h");

    @Test
    void upWithTheNodesViewsAndRegistrationsAsDetails() {
        runner.withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri()).run(context -> {
            Health health = context.getBean("lodestarHealthIndicator", HealthIndicator.class).health();

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("namespace", "spring-health")
                    .containsKeys("discovery", "config", "registrations");
            assertThat((List<?>) health.getDetails().get("nodes")).singleElement()
                    .satisfies(node -> assertThat(((Map<?, ?>) node).get("connected")).isEqualTo(true));
        });
    }

    @Test
    void downWithDetailsWhileRedisIsDownAndUpOnceItIsBack() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            runner.withPropertyValues("lodestar.redis-uri=" + redis.uri()).run(context -> {
                HealthIndicator indicator = context.getBean("lodestarHealthIndicator", HealthIndicator.class);
                assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

                redis.kill();

                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    Health health = indicator.health();
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat((List<?>) health.getDetails().get("nodes")).singleElement()
                            .satisfies(node -> assertThat(((Map<?, ?>) node).get("connected")).isEqualTo(false));
                });

                redis.restart();

                await().atMost(Duration.ofSeconds(15))
                        .untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
            });
        }
    }

    @Test
    void anIndicatorOfTheUserWins() {
        runner.withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri())
                .withUserConfiguration(UserIndicator.class).run(context ->
                        assertThat(context.getBean("lodestarHealthIndicator", HealthIndicator.class).health()
                                .getStatus()).isEqualTo(Status.UNKNOWN));
    }

    @Test
    void managementHealthLodestarEnabledFalseTurnsItOff() {
        runner.withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri(),
                "management.health.lodestar.enabled=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("lodestarHealthIndicator");
                });
    }

    @Test
    void withoutBootsHealthModuleThereIsNoIndicator() {
        runner.withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri())
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("lodestarHealthIndicator");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserIndicator {
        @Bean
        HealthIndicator lodestarHealthIndicator() {
            return () -> Health.unknown().build();
        }
    }
}
