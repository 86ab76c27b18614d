package io.lodestar.micronaut;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContext;
import io.micronaut.health.HealthStatus;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.runtime.server.EmbeddedServer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LodestarHealthIndicatorIT {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private final String namespace = Contexts.namespace();

    @Test
    void connectedAndCurrentIsUpWithTheNodesViewsAndRegistrationsInTheDetails() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            HealthResult result = Reactive.single(lodestarIndicator(context).getResult(), WAIT);

            assertThat(result.getName()).isEqualTo("lodestar");
            assertThat(result.getStatus()).isEqualTo(HealthStatus.UP);
            assertThat(result.getDetails()).asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsKeys("nodes", "discovery", "config", "registrations")
                    .extractingByKey("nodes").asInstanceOf(InstanceOfAssertFactories.LIST)
                    .singleElement().asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsEntry("connected", true);
        }
    }

    @Test
    void downWhileRedisIsKilledAndUpAgainOnceItIsBack() {
        try (RedisServer redis = TestRedis.startStandalone();
             ApplicationContext context = Contexts.run(namespace, Map.of("lodestar.redis-uri", redis.uri()))) {
            HealthIndicator indicator = lodestarIndicator(context);
            assertThat(status(indicator)).isEqualTo(HealthStatus.UP);

            redis.kill();
            await().atMost(WAIT).until(() -> status(indicator).equals(HealthStatus.DOWN));

            redis.restart();
            await().atMost(WAIT).until(() -> status(indicator).equals(HealthStatus.UP));
        }
    }

    @Test
    void theReadinessEndpointOfARealServerReportsLodestar() {
        Map<String, Object> properties = Contexts.properties(namespace, Map.of(
                "micronaut.server.port", "-1",
                "endpoints.health.details-visible", "ANONYMOUS"));
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, properties);
             HttpClient http = HttpClient.create(server.getURL())) {

            String readiness = http.toBlocking().retrieve("/health/readiness");

            assertThat(readiness).contains("\"lodestar\"").contains("\"status\":\"UP\"");
        }
    }

    @Test
    void whileRedisIsDownHealthRequestsAnswerDownWithAReasonAndLogNoStackTrace() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            Map<String, Object> properties = new HashMap<>(Contexts.properties(namespace, Map.of(
                    "micronaut.server.port", "-1", "endpoints.health.details-visible", "ANONYMOUS")));
            properties.put("lodestar.redis-uri", redis.uri());
            try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, properties);
                 HttpClient http = HttpClient.create(server.getURL())) {
                HealthIndicator indicator = lodestarIndicator(server.getApplicationContext());
                redis.kill();
                await().atMost(WAIT).until(() -> status(indicator).equals(HealthStatus.DOWN));

                ByteArrayOutputStream log = new ByteArrayOutputStream();
                PrintStream stderr = System.err;
                System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
                String health;
                try {
                    healthBody(http);
                    health = healthBody(http);
                } finally {
                    System.setErr(stderr);
                }

                assertThat(health).contains("\"lodestar\"").contains("\"reason\":\"Redis not connected");
                assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain("ERROR").doesNotContain("\tat ");
            }
        }
    }

    @Test
    void healthEnabledFalseRemovesTheIndicator() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of("lodestar.health.enabled", "false"))) {
            assertThat(context.getBeansOfType(HealthIndicator.class))
                    .noneMatch(LodestarHealthIndicator.class::isInstance);
        }
    }

    /** @return the body of {@code /health}, which answers 503 while any indicator is DOWN */
    private static String healthBody(HttpClient http) {
        try {
            return http.toBlocking().retrieve("/health");
        } catch (HttpClientResponseException e) {
            return e.getResponse().getBody(String.class).orElseThrow();
        }
    }

    private static HealthStatus status(HealthIndicator indicator) {
        return Reactive.single(indicator.getResult(), WAIT).getStatus();
    }

    private static HealthIndicator lodestarIndicator(ApplicationContext context) {
        List<HealthIndicator> lodestar = context.getBeansOfType(HealthIndicator.class).stream()
                .filter(LodestarHealthIndicator.class::isInstance).toList();
        assertThat(lodestar).hasSize(1);
        return lodestar.get(0);
    }
}
