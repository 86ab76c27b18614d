package io.lodestar.spring;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The actuator endpoints of a real application: health, serviceregistry and lodestar. */
class LodestarActuatorWebIT {
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void healthIsDownWithDetailsWhileRedisIsDownAndUpOnceItIsBack() throws Exception {
        try (RedisServer redis = TestRedis.startStandalone();
             ConfigurableApplicationContext app = start(redis.uri(), "health-app")) {
            String health = base(app) + "/actuator/health";
            assertThat(lodestar(get(health))).containsEntry("status", "UP");

            redis.kill();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                Map<String, Object> lodestar = lodestar(get(health));
                assertThat(lodestar).containsEntry("status", "DOWN");
                assertThat(lodestar.get("details").toString()).contains("connected=false");
            });

            redis.restart();

            await().atMost(Duration.ofSeconds(15))
                    .untilAsserted(() -> assertThat(lodestar(get(health))).containsEntry("status", "UP"));
        }
    }

    @Test
    void whileRedisIsDownTheReadinessProbeFailsAndTheLivenessProbeDoesNot() throws Exception {
        try (RedisServer redis = TestRedis.startStandalone();
             ConfigurableApplicationContext app = start(redis.uri(), "probes-app")) {
            String health = base(app) + "/actuator/health";
            assertThat(get(health + "/readiness").statusCode()).isEqualTo(200);

            redis.kill();

            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(get(health + "/readiness").statusCode()).isEqualTo(503));
            assertThat(get(health + "/liveness").statusCode()).isEqualTo(200);
            assertThat(lodestar(get(health)).get("details").toString()).contains("reason=Redis not connected");
        }
    }

    @Test
    void serviceRegistryEndpointReadsAndChangesTheApplicationsStatus() throws Exception {
        String uri = TestRedis.standalone().uri();
        try (ConfigurableApplicationContext app = start(uri, "status-app");
             LodestarClient observer = RedisLodestar.create(LodestarOptions.builder(uri)
                     .namespace("spring-actuator").reconcileInterval(Duration.ofHours(1)).build())) {
            String endpoint = base(app) + "/actuator/serviceregistry";
            assertThat(get(endpoint).body()).contains("UP");

            HttpResponse<String> changed = http.send(HttpRequest.newBuilder(URI.create(endpoint))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"status\":\"OUT_OF_SERVICE\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(changed.statusCode()).isEqualTo(200);
            assertThat(observer.directDiscovery().getInstances("status-app")).extracting(ServiceInstance::status)
                    .containsExactly(InstanceStatus.OUT_OF_SERVICE);
            assertThat(get(endpoint).body()).contains("OUT_OF_SERVICE");
        }
    }

    @Test
    void lodestarEndpointListsTheNamespacesServicesAndHowCurrentTheViewsAre() throws Exception {
        try (ConfigurableApplicationContext app = start(TestRedis.standalone().uri(), "endpoint-app")) {
            HttpResponse<String> response = get(base(app) + "/actuator/lodestar");

            assertThat(response.statusCode()).isEqualTo(200);
            Map<String, Object> report = JSON.std.mapFrom(response.body());
            assertThat(report).containsEntry("namespace", "spring-actuator").containsEntry("registrationsHeld", 1);
            assertThat(report.get("services")).asInstanceOf(InstanceOfAssertFactories.LIST).contains("endpoint-app");
            assertThat(report.get("discovery").toString()).contains("stale=false");
        }
    }

    @Test
    void lodestarEndpointShowsTheRevisionOfEachServiceTheViewHoldsWithoutLoadingAny() throws Exception {
        String uri = TestRedis.standalone().uri();
        try (ConfigurableApplicationContext app = start(uri, "revisions-app");
             LodestarClient observer = RedisLodestar.create(LodestarOptions.builder(uri)
                     .namespace("spring-actuator").reconcileInterval(Duration.ofHours(1)).build())) {
            String endpoint = base(app) + "/actuator/lodestar";
            assertThat(JSON.std.mapFrom(get(endpoint).body()).get("held")).as("nothing read yet")
                    .asInstanceOf(InstanceOfAssertFactories.MAP).doesNotContainKey("revisions-app");

            app.getBean(LodestarClient.class).discovery().getInstances("revisions-app");
            long revision = observer.directDiscovery().getSnapshot("revisions-app").revision();

            Object held = JSON.std.mapFrom(get(endpoint).body()).get("held");
            assertThat(held).asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
                    .extractingByKey("revisions-app").asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsEntry("revision", (int) revision).containsEntry("instances", 1);
        }
    }

    @Test
    void lodestarEndpointLeavesOutATimeThatNeverHappened() throws Exception {
        try (RedisServer redis = TestRedis.startStandalone();
             ConfigurableApplicationContext app = start(redis.uri(), "never-synced-app")) {
            redis.kill();
            await().atMost(Duration.ofSeconds(10)).until(() -> !app.getBean(LodestarClient.class).health().healthy());

            HttpResponse<String> response = get(base(app) + "/actuator/lodestar");

            assertThat(response.body()).as("config was never synced").doesNotContain("\"null\"");
            assertThat(JSON.std.mapFrom(response.body()).get("config")).asInstanceOf(InstanceOfAssertFactories.MAP)
                    .doesNotContainKey("lastSyncAt");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> lodestar(HttpResponse<String> health) throws IOException {
        Map<String, Object> components = (Map<String, Object>) JSON.std.mapFrom(health.body()).get("components");
        return (Map<String, Object>) components.get("lodestar");
    }

    private HttpResponse<String> get(String uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String base(ConfigurableApplicationContext app) {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    private static ConfigurableApplicationContext start(String redisUri, String name) {
        return new SpringApplicationBuilder(App.class).properties("server.port=0", "spring.application.name=" + name,
                "lodestar.redis-uri=" + redisUri, "lodestar.namespace=spring-actuator",
                "lodestar.reconcile-interval=1h", "lodestar.registration.host=127.0.0.1",
                "management.endpoints.web.exposure.include=health,serviceregistry,lodestar",
                "management.endpoint.health.show-details=always").run();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
