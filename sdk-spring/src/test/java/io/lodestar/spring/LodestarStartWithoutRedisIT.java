package io.lodestar.spring;

import com.fasterxml.jackson.jr.ob.JSON;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A start while Redis is down (a private server of the test kit, killed before the application starts): by default
 * the application starts, says so in its health, and registers once Redis is back; {@code lodestar.fail-fast=true}
 * fails the start with a report. Imports: an {@code optional:} one is skipped, any other fails the start.
 */
class LodestarStartWithoutRedisIT {
    private static final String NAMESPACE = "spring-offline";
    private static final Duration BACK_WITHIN = Duration.ofSeconds(20);
    private final HttpClient http = HttpClient.newHttpClient();
    private RedisServer redis;

    @BeforeEach
    void redisIsDown() {
        redis = TestRedis.startStandalone();
        redis.kill();
    }

    @AfterEach
    void closeRedis() {
        redis.close();
    }

    @Test
    void anApplicationStartedWhileRedisIsDownStartsReportsDownAndRegistersOnceRedisIsBack() throws Exception {
        try (ConfigurableApplicationContext app = web("offline-app").run()) {
            // then it runs, unregistered, and its health says why
            assertThat(app.getBean(LodestarAutoRegistration.class).registered()).isNull();
            Map<String, Object> lodestar = lodestarHealth(app);
            assertThat(lodestar).containsEntry("status", "DOWN");
            assertThat(lodestar.get("details").toString()).contains("connected=false").contains("held=0");

            // when Redis comes back
            redis.restart();

            // then the application registers itself, and its health turns UP
            try (LodestarClient observer = RedisLodestar.create(LodestarOptions.builder(redis.uri())
                    .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build())) {
                int port = ((WebServerApplicationContext) app).getWebServer().getPort();
                await().atMost(BACK_WITHIN).untilAsserted(() -> {
                    assertThat(observer.directDiscovery().getInstances("offline-app"))
                            .extracting(ServiceInstance::port).containsExactly(port);
                    assertThat(app.getBean(LodestarAutoRegistration.class).registered()).isNotNull();
                });
            }
            await().atMost(BACK_WITHIN).untilAsserted(() ->
                    assertThat(lodestarHealth(app)).containsEntry("status", "UP"));
        }
    }

    @Test
    void withFailFastTheSameStartFailsWithAReportNamingTheUriAndHowToStartAnyway() {
        Throwable failure = catchStartFailure(web("fail-fast-app").properties("lodestar.fail-fast=true"));

        FailureAnalysis analysis = new LodestarUnavailableFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).startsWith("Lodestar could not reach Redis");
        assertThat(analysis.getAction()).contains("lodestar.redis-uri").contains("lodestar.fail-fast");
    }

    @Test
    void anExplicitStartupModeWinsOverFailFastForTheClient() {
        Throwable failure = catchStartFailure(web("explicit-app").properties("lodestar.startup-mode=fail-fast"));

        assertThat(new LodestarUnavailableFailureAnalyzer().analyze(failure)).as("Redis could not be reached")
                .isNotNull();
    }

    @Test
    void withFailFastAnExplicitlyOfflineClientStillFailsTheStartAtRegistration() {
        Throwable failure = catchStartFailure(web("offline-fail-fast-app")
                .properties("lodestar.fail-fast=true", "lodestar.startup-mode=offline"));

        assertThat(failure).hasStackTraceContaining("register offline-fail-fast-app/");
        assertThat(new LodestarUnavailableFailureAnalyzer().analyze(failure)).isNotNull();
    }

    @Test
    void anOptionalImportIsSkippedWhileRedisIsDownAndArrivesOnceItIsBack() {
        try (ConfigurableApplicationContext app = imports("optional:lodestar:orders/offline").run()) {
            assertThat(app.getEnvironment().getProperty("offline.limit")).isNull();

            redis.restart();
            try (LodestarClient admin = RedisLodestar.create(LodestarOptions.builder(redis.uri())
                    .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build())) {
                admin.config().set("orders/offline", "offline.limit=7", ConfigFormat.PROPERTIES);
            }

            // the config refresh (Spring Cloud Context) re-runs the imports once the entry can be read
            await().atMost(BACK_WITHIN).untilAsserted(() ->
                    assertThat(app.getEnvironment().getProperty("offline.limit")).isEqualTo("7"));
        }
    }

    @Test
    void aNonOptionalImportFailsTheStartWithAReportNamingTheImportAndTheWaysOut() {
        Throwable failure = catchStartFailure(imports("lodestar:orders/needed"));

        assertThat(failure).isInstanceOf(LodestarConfigImportException.class)
                .hasMessageContaining("Cannot import lodestar:orders/needed");
        FailureAnalysis analysis = new LodestarUnavailableFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).startsWith("Lodestar could not read lodestar:orders/needed");
        assertThat(analysis.getAction()).contains("lodestar.redis-uri").contains("optional:lodestar:orders/needed")
                .contains("lodestar.config-snapshot-directory");
    }

    @Test
    void aNonOptionalImportReadsTheLastGoodCopyFromTheSnapshotDirectoryWhileRedisIsDown(@TempDir Path snapshots)
            throws IOException {
        // given an earlier start that read the entry while Redis was up, with a snapshot directory
        redis.restart();
        try (LodestarClient admin = RedisLodestar.create(LodestarOptions.builder(redis.uri())
                .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build())) {
            admin.config().set("orders/snapshotted", "snapshotted.limit=9", ConfigFormat.PROPERTIES);
        }
        try (ConfigurableApplicationContext earlier = imports("lodestar:orders/snapshotted")
                .properties("lodestar.config-snapshot-directory=" + snapshots).run()) {
            assertThat(earlier.getEnvironment().getProperty("snapshotted.limit")).isEqualTo("9");
        }
        await().atMost(BACK_WITHIN).until(() -> hasFiles(snapshots));

        // when Redis is down at the next start
        redis.kill();
        try (ConfigurableApplicationContext app = imports("lodestar:orders/snapshotted")
                .properties("lodestar.config-snapshot-directory=" + snapshots).run()) {
            // then the import is served from disk
            assertThat(app.getEnvironment().getProperty("snapshotted.limit")).isEqualTo("9");
        }
    }

    private static boolean hasFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.anyMatch(Files::isRegularFile);
        }
    }

    @Test
    void withFailFastEvenAnOptionalImportFailsTheStart() {
        Throwable failure = catchStartFailure(imports("optional:lodestar:orders/offline")
                .properties("lodestar.fail-fast=true"));

        FailureAnalysis analysis = new LodestarUnavailableFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).startsWith("Lodestar could not reach Redis");
    }

    private static Throwable catchStartFailure(SpringApplicationBuilder application) {
        Throwable failure = catchThrowable(() -> application.run().close());
        assertThat(failure).as("the start failed").isNotNull();
        return failure;
    }

    private SpringApplicationBuilder web(String name) {
        return new SpringApplicationBuilder(App.class).properties("server.port=0", "spring.application.name=" + name,
                "lodestar.redis-uri=" + redis.uri(), "lodestar.namespace=" + NAMESPACE,
                "lodestar.reconcile-interval=1h", "lodestar.command-timeout=1s", "lodestar.registration.host=127.0.0.1",
                "management.endpoints.web.exposure.include=health",
                "management.endpoint.health.show-details=always");
    }

    private SpringApplicationBuilder imports(String imports) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(
                "spring.config.import=" + imports, "lodestar.redis-uri=" + redis.uri(),
                "lodestar.namespace=" + NAMESPACE, "lodestar.reconcile-interval=1h", "lodestar.command-timeout=1s",
                "lodestar.registration.enabled=false");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> lodestarHealth(ConfigurableApplicationContext app) throws IOException,
            InterruptedException {
        String uri = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort()
                + "/actuator/health";
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(uri))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        Map<String, Object> components = (Map<String, Object>) JSON.std.mapFrom(health.body()).get("components");
        return (Map<String, Object>) components.get("lodestar");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
