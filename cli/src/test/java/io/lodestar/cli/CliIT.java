package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code lodestar} jar against a real Redis: what it prints (tables for people, JSON and YAML that parse) and
 * the exit codes scripts rely on. Each test has its own namespace; the state is prepared and checked with the SDK.
 * The tests run two at a time (see junit-platform.properties): they share nothing but the Redis.
 */
class CliIT {
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    private LodestarClient sdk;

    @BeforeEach
    void connect() {
        sdk = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace).build());
    }

    @AfterEach
    void close() {
        sdk.close();
    }

    private CliJar.Result lodestar(String... args) {
        return lodestarWithInput("", args);
    }

    private CliJar.Result lodestarWithInput(String stdin, String... args) {
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri(), "--namespace", namespace));
        all.addAll(List.of(args));
        return CliJar.run(Map.of(), stdin, all.toArray(String[]::new));
    }

    private void register(String service, String id, int port, String zone) {
        sdk.registry().register(ServiceInstance.builder(service, id).host("10.0.0.7").port(port).weight(40)
                .metadata("zone", zone).metadata("version", "2.3").ttl(Duration.ofSeconds(30)).build());
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void servicesListsWhatOtherClientsRegistered() {
        register("orders", "orders-1", 8080, "eu-1");
        register("orders", "orders-2", 8081, "eu-2");
        register("billing", "billing-1", 9090, "eu-1");

        CliJar.Result result = lodestar("services", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        JsonNode services = result.json();
        assertThat(services).hasSize(2);
        assertThat(services.get(0).get("service").asText()).isEqualTo("billing");
        assertThat(services.get(1).get("service").asText()).isEqualTo("orders");
        assertThat(services.get(1).get("instances").asInt()).isEqualTo(2);
        assertThat(services.get(1).get("revision").asLong()).isPositive();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void instancesPrintsATableWithEveryColumn() {
        register("orders", "orders-1", 8080, "eu-1");

        CliJar.Result result = lodestar("instances", "orders");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        String[] lines = result.out().split("\n");
        assertThat(lines[0].split("\\s{2,}"))
                .containsExactly("ID", "ADDRESS", "WEIGHT", "STATUS", "ZONE", "AGE", "TTL LEFT", "REVISION");
        assertThat(lines[1]).contains("orders-1", "10.0.0.7:8080", "40", "up", "eu-1")
                .containsPattern("\\b(2\\d|30)s\\b");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void instancesAsJsonCarryMetadataTtlAndTheServiceRevision() {
        register("orders", "orders-1", 8080, "eu-1");
        long revision = sdk.directDiscovery().getSnapshot("orders").revision();

        CliJar.Result result = lodestar("instances", "orders", "--output", "json");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        JsonNode json = result.json();
        assertThat(json.get("revision").asLong()).isEqualTo(revision);
        JsonNode instance = json.get("instances").get(0);
        assertThat(instance.get("id").asText()).isEqualTo("orders-1");
        assertThat(instance.get("address").asText()).isEqualTo("10.0.0.7:8080");
        assertThat(instance.get("weight").asInt()).isEqualTo(40);
        assertThat(instance.get("status").asText()).isEqualTo("up");
        assertThat(instance.get("zone").asText()).isEqualTo("eu-1");
        assertThat(instance.get("metadata").get("version").asText()).isEqualTo("2.3");
        assertThat(instance.get("ttlSeconds").asLong()).isEqualTo(30);
        assertThat(instance.get("ttlLeftSeconds").asLong()).isBetween(20L, 30L);
        assertThat(instance.get("ageSeconds").asLong()).isNotNegative();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void yamlOutputParses() throws IOException {
        register("orders", "orders-1", 8080, "eu-1");

        CliJar.Result result = lodestar("-o", "yaml", "instances", "orders");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        JsonNode yaml = new YAMLMapper().readTree(result.out());
        assertThat(yaml.get("instances").get(0).get("address").asText()).isEqualTo("10.0.0.7:8080");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anUnknownServiceExitsWith1() {
        CliJar.Result result = lodestar("instances", "nobody");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
        assertThat(result.err()).contains("No instances of 'nobody'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void configSetReadsStandardInputAndGetPrintsTheContent() {
        CliJar.Result set = lodestarWithInput("max-requests: 100\n", "config", "set", "orders/limits", "-f", "yaml");
        CliJar.Result get = lodestar("config", "get", "orders/limits");
        CliJar.Result json = lodestar("config", "get", "orders/limits", "-o", "json");

        assertThat(set.exitCode()).as(set.toString()).isZero();
        assertThat(get.out()).isEqualTo("max-requests: 100\n");
        assertThat(json.json().get("version").asLong()).isEqualTo(1);
        assertThat(json.json().get("format").asText()).isEqualTo("yaml");
        assertThat(sdk.config().get("orders/limits")).get()
                .satisfies(entry -> assertThat(entry.format()).isEqualTo(ConfigFormat.YAML));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void configSetReadsAFileAndTakesItsFormatFromTheName(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("limits.properties"), "max=5\n");

        CliJar.Result set = lodestar("config", "set", "orders/limits", file.toString(), "-o", "json");

        assertThat(set.exitCode()).as(set.toString()).isZero();
        assertThat(set.json().get("format").asText()).isEqualTo("properties");
        assertThat(lodestar("config", "get", "orders/limits").out()).isEqualTo("max=5\n");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aBadValueIsAStructuredUsageErrorWhenJsonWasAskedFor() {
        CliJar.Result result = lodestar("-o", "json", "status", "orders", "orders-1", "sideways");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.out()).isEmpty();
        JsonNode error = new CliJar.Result(0, result.err(), "").json();
        assertThat(error.get("error").asText()).isEqualTo("usage");
        assertThat(error.get("exitCode").asInt()).isEqualTo(64);
        assertThat(error.get("message").asText()).contains("status must be one of up, down, out-of-service,"
                + " starting, but was 'sideways'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anUnknownOptionIsAStructuredUsageErrorWhenJsonWasAskedFor() {
        CliJar.Result result = lodestar("services", "--bogus", "--output=json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        JsonNode error = new CliJar.Result(0, result.err(), "").json();
        assertThat(error.get("error").asText()).isEqualTo("usage");
        assertThat(error.get("message").asText()).contains("--bogus");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void setWithAStaleIfVersionExitsWith2AndChangesNothing() {
        sdk.config().set("orders/limits", "v1", ConfigFormat.TEXT);
        sdk.config().set("orders/limits", "v2", ConfigFormat.TEXT);

        CliJar.Result stale = lodestarWithInput("v3", "config", "set", "orders/limits", "--if-version", "1");
        CliJar.Result staleJson = lodestarWithInput("v3", "config", "set", "orders/limits", "--if-version", "1",
                "-o", "json");
        CliJar.Result current = lodestarWithInput("v3", "config", "set", "orders/limits", "--if-version", "2");

        assertThat(stale.exitCode()).as(stale.toString()).isEqualTo(2);
        assertThat(stale.err()).contains("current version is 2");
        assertThat(staleJson.out()).isEmpty();
        JsonNode error = new CliJar.Result(0, staleJson.err(), "").json();
        assertThat(error.get("error").asText()).isEqualTo("conflict");
        assertThat(error.get("exitCode").asInt()).isEqualTo(2);
        assertThat(error.get("message").asText()).contains("current version is 2");
        assertThat(current.exitCode()).as(current.toString()).isZero();
        assertThat(lodestar("config", "get", "orders/limits").out()).isEqualTo("v3");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void historyListsVersionsNewestFirstAndDiffComparesTwo() {
        sdk.config().set("orders/limits", "a: 1\nb: 2\n", ConfigFormat.YAML);
        sdk.config().set("orders/limits", "a: 1\nb: 3\n", ConfigFormat.YAML);

        CliJar.Result history = lodestar("config", "history", "orders/limits", "-o", "json");
        CliJar.Result diff = lodestar("config", "diff", "orders/limits", "1", "2");
        CliJar.Result diffJson = lodestar("config", "diff", "orders/limits", "1", "-o", "json");

        assertThat(history.exitCode()).as(history.toString()).isZero();
        assertThat(history.json()).extracting(node -> node.get("version").asLong()).containsExactly(2L, 1L);
        assertThat(diff.out()).contains("  a: 1\n- b: 2\n+ b: 3\n");
        assertThat(diffJson.json().get("to").asLong()).isEqualTo(2);
        assertThat(diffJson.json().get("lines")).extracting(node -> node.get("op").asText())
                .containsExactly(" ", "-", "+");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void rollbackMakesAnOldVersionCurrentAsANewVersion() {
        sdk.config().set("orders/limits", "good", ConfigFormat.TEXT);
        sdk.config().set("orders/limits", "bad", ConfigFormat.TEXT);

        CliJar.Result stale = lodestar("config", "rollback", "orders/limits", "1", "--if-version", "1", "--yes");
        CliJar.Result rollback = lodestar("config", "rollback", "orders/limits", "1", "--if-version", "2", "-y");
        CliJar.Result missing = lodestar("config", "rollback", "orders/limits", "99", "--yes");

        assertThat(stale.exitCode()).as(stale.toString()).isEqualTo(2);
        assertThat(rollback.exitCode()).as(rollback.toString()).isZero();
        JsonNode current = lodestar("config", "get", "orders/limits", "-o", "json").json();
        assertThat(current.get("content").asText()).isEqualTo("good");
        assertThat(current.get("version").asLong()).isEqualTo(3);
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void rollbackWithoutYesIsRefusedWhenStandardInputIsNotATerminal() {
        sdk.config().set("orders/limits", "good", ConfigFormat.TEXT);
        sdk.config().set("orders/limits", "bad", ConfigFormat.TEXT);

        CliJar.Result result = lodestar("config", "rollback", "orders/limits", "1");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("roll back config orders/limits to the content of version 1 in namespace "
                + namespace + " needs a confirmation", "give --yes to confirm");
        assertThat(sdk.config().get("orders/limits").orElseThrow().version()).isEqualTo(2);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void rmRemovesAConfigAndAMissingOneExitsWith1() {
        sdk.config().set("orders/limits", "v1", ConfigFormat.TEXT);

        CliJar.Result rm = lodestar("config", "rm", "orders/limits");
        CliJar.Result again = lodestar("config", "rm", "orders/limits");
        CliJar.Result get = lodestar("config", "get", "orders/limits");
        CliJar.Result list = lodestar("config", "list", "-o", "json");

        assertThat(rm.exitCode()).as(rm.toString()).isZero();
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(1);
        assertThat(get.exitCode()).as(get.toString()).isEqualTo(1);
        assertThat(list.json()).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void evictRemovesAnInstanceAndAnUnknownOneExitsWith1() {
        register("orders", "orders-1", 8080, "eu-1");
        register("orders", "orders-2", 8081, "eu-1");

        CliJar.Result evict = lodestar("evict", "orders", "orders-1", "--yes");
        CliJar.Result unknown = lodestar("evict", "orders", "orders-9", "--yes");

        assertThat(evict.exitCode()).as(evict.toString()).isZero();
        assertThat(sdk.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-2");
        assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void statusTakesAnInstanceOutOfService() {
        register("orders", "orders-1", 8080, "eu-1");

        CliJar.Result status = lodestar("status", "orders", "orders-1", "out-of-service", "-o", "json");
        CliJar.Result unknown = lodestar("status", "orders", "orders-9", "up");

        assertThat(status.exitCode()).as(status.toString()).isZero();
        assertThat(status.json().get("status").asText()).isEqualTo("out-of-service");
        assertThat(sdk.directDiscovery().getInstance("orders", "orders-1")).get()
                .extracting(ServiceInstance::status).isEqualTo(InstanceStatus.OUT_OF_SERVICE);
        assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void namespacesAreApart() {
        sdk.config().set("orders/limits", "v1", ConfigFormat.TEXT);

        CliJar.Result other = CliJar.run(Map.of(), "", "--uri", redis.uri(), "-n", namespace + "-other",
                "config", "list", "-o", "json");

        assertThat(other.exitCode()).as(other.toString()).isZero();
        assertThat(other.json()).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theUriAndNamespaceComeFromTheEnvironment() {
        sdk.config().set("orders/limits", "from-env", ConfigFormat.TEXT);

        CliJar.Result result = CliJar.run(Map.of("LODESTAR_REDIS_URI", redis.uri(), "LODESTAR_NAMESPACE", namespace),
                "", "config", "get", "orders/limits");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("from-env");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anUnreachableRedisExitsWith3() throws IOException {
        CliJar.Result result = CliJar.run(Map.of(), "", "--uri", "redis://127.0.0.1:" + closedPort(),
                "--timeout", "2s", "services");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(3);
        assertThat(result.err()).contains("Cannot connect to Redis");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void usageErrorsExitWith64() {
        assertThat(lodestar("services", "--bogus").exitCode()).isEqualTo(64);
        assertThat(lodestar("status", "orders", "orders-1", "sleeping").exitCode()).isEqualTo(64);
        assertThat(lodestar("services", "-o", "xml").exitCode()).isEqualTo(64);
        assertThat(lodestar("config", "set", "orders/limits", "/no/such/file").exitCode()).isEqualTo(64);
        assertThat(lodestar("config").exitCode()).isEqualTo(64);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aPasswordIsNeverEchoedNotEvenWhenVerbose() throws IOException {
        String secret = "s3cret-" + UUID.randomUUID();
        String refused = "redis://admin:" + secret + "@127.0.0.1:" + closedPort();
        String wrong = "redis://admin:" + secret + "@" + redis.host() + ":" + redis.port();

        CliJar.Result unreachable = CliJar.run(Map.of(), "", "--uri", refused, "-v", "--timeout", "2s", "services");
        CliJar.Result rejected = CliJar.run(Map.of("LODESTAR_REDIS_URI", wrong), "", "--verbose", "services");
        CliJar.Result help = CliJar.run(Map.of("LODESTAR_REDIS_URI", wrong), "", "--help");

        assertThat(unreachable.exitCode()).as(unreachable.toString()).isEqualTo(3);
        assertThat(rejected.exitCode()).as(rejected.toString()).isEqualTo(3);
        assertThat(unreachable.err()).contains("redis://***@127.0.0.1");
        for (CliJar.Result result : List.of(unreachable, rejected, help)) {
            assertThat(result.out() + result.err()).doesNotContain(secret);
        }
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
