package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.core.model.GrayRule;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code lodestar config gray …} and {@code lodestar config log}: a release flow from the command line. */
class ConfigGrayCliIT {
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    private LodestarClient sdk;
    private LodestarClient eu1;

    @BeforeEach
    void connect() {
        sdk = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace).build());
        eu1 = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .identity(new InstanceIdentity("orders-1", Map.of("zone", "eu-1"))).build());
    }

    @AfterEach
    void close() {
        sdk.close();
        eu1.close();
    }

    private CliJar.Result lodestar(String stdin, String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri(), "--namespace", namespace));
        all.addAll(List.of(args));
        return CliJar.run(Map.of(), stdin, all.toArray(String[]::new));
    }

    private String eu1Content() {
        return eu1.config().get("orders/limits").map(ConfigEntry::content).orElse(null);
    }

    @Test
    void aReleaseStartsForALabelGrowsAndIsPromoted() {
        sdk.config().set("orders/limits", "max=1", ConfigFormat.PROPERTIES);
        assertThat(eu1Content()).isEqualTo("max=1");

        CliJar.Result start = lodestar("max=2", "config", "gray", "start", "orders/limits", "--rule", "zone=eu-1",
                "-f", "properties");
        await().atMost(Duration.ofSeconds(5)).until(() -> "max=2".equals(eu1Content()));
        CliJar.Result update = lodestar("", "config", "gray", "update", "orders/limits", "--rule", "zone=eu-1; 50%");
        CliJar.Result show = lodestar("", "config", "gray", "show", "orders/limits", "-o", "json");
        CliJar.Result promote = lodestar("", "config", "gray", "promote", "orders/limits", "--if-version", "1");

        assertThat(start.exitCode()).as(start.toString()).isZero();
        assertThat(start.out()).contains("gray release started beside version 1 for zone=eu-1");
        assertThat(update.exitCode()).as(update.toString()).isZero();
        assertThat(show.json().get("rule").asText()).isEqualTo("zone=eu-1; 50%");
        assertThat(show.json().get("content").asText()).isEqualTo("max=2");
        assertThat(promote.exitCode()).as(promote.toString()).isZero();
        assertThat(sdk.config().get("orders/limits").orElseThrow().content()).isEqualTo("max=2");
        assertThat(sdk.config().gray("orders/limits")).isEmpty();
    }

    @Test
    void abortEndsTheReleaseAndASecondAbortExitsWith1() {
        sdk.config().set("orders/limits", "max=1", ConfigFormat.PROPERTIES);
        lodestar("max=2", "config", "gray", "start", "orders/limits", "--rule", "instance in (orders-1)");
        await().atMost(Duration.ofSeconds(5)).until(() -> "max=2".equals(eu1Content()));

        CliJar.Result abort = lodestar("", "config", "gray", "abort", "orders/limits");
        CliJar.Result again = lodestar("", "config", "gray", "abort", "orders/limits");

        assertThat(abort.exitCode()).as(abort.toString()).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> "max=1".equals(eu1Content()));
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(1);
        assertThat(again.err()).contains("Config 'orders/limits' has no gray release");
    }

    @Test
    void aRuleThatIsNotUnderstoodIsAUsageErrorNamingIt() {
        sdk.config().set("orders/limits", "max=1", ConfigFormat.PROPERTIES);

        CliJar.Result result = lodestar("max=2", "config", "gray", "start", "orders/limits", "--rule", "zone ~ eu");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("rule must be clauses like 'zone=eu-1'").contains("zone ~ eu");
    }

    @Test
    void logShowsEveryWriteNewestFirstWithItsClient() {
        sdk.config().set("orders/limits", "max=1", ConfigFormat.PROPERTIES);
        sdk.config().set("orders/limits", "max=2", ConfigFormat.PROPERTIES);
        lodestar("max=3", "config", "gray", "start", "orders/limits", "--rule", "10%");

        CliJar.Result log = lodestar("", "config", "log", "orders/limits", "-o", "json");
        CliJar.Result table = lodestar("", "config", "log", "orders/limits", "--limit", "1");

        assertThat(log.exitCode()).as(log.toString()).isZero();
        JsonNode records = log.json();
        assertThat(records).extracting(node -> node.get("operation").asText())
                .containsExactly("gray-start", "set", "set");
        assertThat(records).extracting(node -> node.get("previous").asLong()).containsExactly(2L, 1L, 0L);
        assertThat(records.get(1).get("client").asText()).isEqualTo("lodestar");
        assertThat(table.out()).contains("gray-start").doesNotContain(" set ");
    }

    @Test
    void theConsoleShowsAConfigsGrayReleaseAndItsAuditTrail() throws Exception {
        sdk.config().set("orders/limits", "max=1", ConfigFormat.PROPERTIES);
        sdk.config().startGray("orders/limits", "max=2", ConfigFormat.PROPERTIES, GrayRule.percent(10));

        try (ConsoleProcess console = new ConsoleProcess(redis.uri(), namespace)) {
            JsonNode config = getJson(console, "api/config?id=orders/limits");
            JsonNode log = getJson(console, "api/config/log?id=orders/limits");

            assertThat(config.get("gray").get("rule").asText()).isEqualTo("10%");
            assertThat(config.get("gray").get("content").asText()).isEqualTo("max=2");
            assertThat(config.get("current").get("content").asText()).as("the console is in no gray set")
                    .isEqualTo("max=1");
            assertThat(log).extracting(node -> node.get("operation").asText()).containsExactly("gray-start", "set");
        }
    }

    private static JsonNode getJson(ConsoleProcess console, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(console.url() + path)).timeout(Duration.ofSeconds(20))
                .header("X-Lodestar-Token", console.printedToken()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return new ObjectMapper().readTree(response.body());
    }
}
