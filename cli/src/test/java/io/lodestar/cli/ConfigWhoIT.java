package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.StallingRelay;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code lodestar config who} and its deployment gate {@code --wait-applied} against real Redis, the jar run as
 * {@link CliIT} runs it; the clients that apply the config are SDK clients of this JVM.
 */
class ConfigWhoIT {
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "who-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<LodestarClient> clients = new ArrayList<>();
    private LodestarClient operator;

    @BeforeEach
    void connect() {
        operator = client(redis.uri(), options -> options);
    }

    @AfterEach
    void close() {
        clients.forEach(LodestarClient::close);
    }

    private LodestarClient client(String uri, UnaryOperator<LodestarOptions.Builder> customizer) {
        LodestarClient client = RedisLodestar.create(customizer.apply(LodestarOptions.builder(uri)
                .namespace(namespace).sweepInterval(Duration.ofMillis(500))).build());
        clients.add(client);
        return client;
    }

    private CliJar.Result lodestar(String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri(), "--namespace", namespace));
        all.addAll(List.of(args));
        return CliJar.run(Map.of(), "", all.toArray(String[]::new));
    }

    /** Waits until {@code count} clients have recorded the version of "app" they applied. */
    private void awaitRecords(int count) {
        await().atMost(Duration.ofSeconds(5)).until(() -> operator.config().applied("app").size() == count);
    }

    @Test
    void whoListsEachLiveClientWithTheVersionItApplied() {
        // given a client that runs version 1
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client(redis.uri(), options -> options.clientName("orders-app")).config().get("app");
        awaitRecords(1);

        // when asked who runs it
        CliJar.Result result = lodestar("config", "who", "app", "-o", "json");

        // then that client is listed at version 1, and the rollout of version 1 is complete
        assertThat(result.exitCode()).as(result.toString()).isZero();
        JsonNode rollout = result.json();
        assertThat(rollout.get("version").asLong()).isEqualTo(1);
        assertThat(rollout.get("complete").asBoolean()).isTrue();
        assertThat(rollout.get("clients")).hasSize(1);
        JsonNode client = rollout.get("clients").get(0);
        assertThat(client.get("name").asText()).isEqualTo("orders-app");
        assertThat(client.get("version").asLong()).isEqualTo(1);
        assertThat(client.get("variant").asText()).isEqualTo("main");
        assertThat(client.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
    }

    @Test
    void theTableSaysHowManyLiveClientsRunTheCurrentVersion() {
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client(redis.uri(), options -> options).config().get("app");
        awaitRecords(1);

        CliJar.Result result = lodestar("config", "who", "app");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("app: version 1, run by 1 of 1 live clients", "VERSION", "VARIANT", "main");
    }

    @Test
    void waitAppliedSucceedsOnceEveryLiveClientRunsTheNewVersion() {
        // given two clients running version 1
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client(redis.uri(), options -> options).config().get("app");
        client(redis.uri(), options -> options).config().get("app");
        awaitRecords(2);

        // when version 2 is written and the pipeline waits for it
        operator.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        CliJar.Result result = lodestar("config", "who", "app", "--wait-applied", "--wait-timeout", "20s",
                "-o", "json");

        // then it exits 0 with both clients at version 2
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.json().get("complete").asBoolean()).isTrue();
        assertThat(result.json().get("clients").findValuesAsText("version")).containsExactly("2", "2");
    }

    @Test
    void waitAppliedTimesOutWithExitFourWhileALiveClientRunsAnOldVersion() {
        // given a live client that cannot hear of version 2: its link stalls, and its record (renewed every 10 s,
        // so alive for 30 s) still says version 1
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        try (StallingRelay link = StallingRelay.to(redis)) {
            LodestarClient stuck = client(link.uri(), options -> options.clientName("stuck")
                    .sweepInterval(Duration.ofSeconds(10)).commandTimeout(Duration.ofMillis(500)));
            stuck.config().get("app");
            awaitRecords(1);
            link.stall();

            // when version 2 is written and the pipeline waits for it, briefly
            operator.config().set("app", "a=2", ConfigFormat.PROPERTIES);
            CliJar.Result result = lodestar("config", "who", "app", "--wait-applied", "--wait-timeout", "1s");

            // then it gives up with exit 4, naming how many clients are behind, and lists the one at version 1
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.NOT_APPLIED);
            assertThat(result.err()).contains("app: after 1s, 1 of 1 live clients still run another version than 2");
            assertThat(result.out()).contains("app: version 2, run by 0 of 1 live clients (1 behind)", "stuck");
        }
    }

    @Test
    void whoOfAConfigThatDoesNotExistExitsWithOne() {
        CliJar.Result result = lodestar("config", "who", "nothing");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(result.err()).contains("No config 'nothing'");
    }
}
