package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code lodestar register}, {@code deregister} and {@code purge}: the jar against a real Redis, as {@link CliIT}
 * runs it (standard input is a pipe, not a terminal, so a destructive command needs {@code --yes}), and in a
 * pseudo-terminal for the question it asks there. Each test has its own namespace; the state is prepared and
 * checked with the SDK. The tests run two at a time (see junit-platform.properties): they share nothing but the Redis.
 */
class RegistryCliIT {
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "clireg-" + UUID.randomUUID().toString().substring(0, 8);
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
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri(), "--namespace", namespace));
        all.addAll(List.of(args));
        return CliJar.run(Map.of(), "", all.toArray(String[]::new));
    }

    /** The jar in a pseudo-terminal (util-linux {@code script}, as {@link WatchIT}), with {@code typed} typed. */
    private CliJar.Result onTerminal(String typed, String... args) {
        Path script = Path.of("/usr/bin/script");
        Assumptions.assumeTrue(Files.isExecutable(script), "util-linux `script` is missing: it gives the jar a"
                + " pseudo-terminal (Debian package bsdutils)");
        List<String> all = new ArrayList<>(List.of("--uri", redis.uri(), "--namespace", namespace));
        all.addAll(List.of(args));
        return CliJar.exec(List.of(script.toString(), "-qfec", CliJar.shellLine(CliJar.command(all)), "/dev/null"),
                Map.of(), typed);
    }

    private static JsonNode error(CliJar.Result result) {
        return new CliJar.Result(0, result.err(), "").json();
    }

    private void registerPersistent(String service, String id) {
        sdk.registry().register(ServiceInstance.builder(service, id).host("10.0.0.9").port(5432).persistent().build());
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void registerMakesAPersistentInstanceThatOutlivesTheCommand() {
        CliJar.Result result = lodestar("register", "postgres", "pg-1", "--host", "db.internal", "--port", "5432",
                "--weight", "20", "--metadata", "zone=eu-1", "--metadata", "role=primary", "--secure",
                "--status", "out-of-service");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out().split("\n")[1]).contains("pg-1", "db.internal:5432", "20", "out-of-service", "eu-1",
                "persistent");
        ServiceInstance registered = sdk.directDiscovery().getInstance("postgres", "pg-1").orElseThrow();
        assertThat(registered.ephemeral()).isFalse();
        assertThat(registered.ttl()).isEqualTo(Duration.ZERO);
        assertThat(registered.secure()).isTrue();
        assertThat(registered.weight()).isEqualTo(20);
        assertThat(registered.status()).isEqualTo(InstanceStatus.OUT_OF_SERVICE);
        assertThat(registered.metadata()).containsExactlyInAnyOrderEntriesOf(
                Map.of("zone", "eu-1", "role", "primary"));
        assertThat(sdk.registry().timeToLive("postgres")).doesNotContainKey("pg-1");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void registerAsJsonPrintsTheInstanceAsRegistered() {
        CliJar.Result result = lodestar("register", "postgres", "pg-1", "--host", "db.internal", "--port", "5432",
                "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        JsonNode instance = result.json();
        assertThat(instance.get("id").asText()).isEqualTo("pg-1");
        assertThat(instance.get("service").asText()).isEqualTo("postgres");
        assertThat(instance.get("address").asText()).isEqualTo("db.internal:5432");
        assertThat(instance.get("weight").asInt()).isEqualTo(100);
        assertThat(instance.get("status").asText()).isEqualTo("up");
        assertThat(instance.get("secure").asBoolean()).isFalse();
        assertThat(instance.get("ephemeral").asBoolean()).isFalse();
        assertThat(instance.get("ttl").asText()).isEqualTo("persistent");
        assertThat(instance.get("registeredAt").asText()).isNotBlank();
        assertThat(instance.get("revision").asLong())
                .isEqualTo(sdk.directDiscovery().getSnapshot("postgres").revision());
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void registerNamesEveryBadFieldItsValueAndTheRuleAndRegistersNothing() {
        CliJar.Result result = lodestar("register", "postgres", "pg-1", "--host", "db.internal", "--port", "70000",
                "--weight", "-1", "--metadata", "zone");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("metadata must be KEY=VALUE with a non-empty KEY, but was 'zone'");
        assertThat(sdk.directDiscovery().getInstances("postgres")).isEmpty();

        CliJar.Result fields = lodestar("register", "postgres", "pg-1", "--host", "db.internal", "--port", "70000",
                "--weight", "-1");

        assertThat(fields.exitCode()).as(fields.toString()).isEqualTo(64);
        assertThat(fields.err()).contains("port must be between 1 and 65535, but was 70000",
                "weight must be between 0 and 10000, but was -1");
        assertThat(sdk.directDiscovery().getInstances("postgres")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void registerRefusesAMetadataKeyGivenTwice() {
        CliJar.Result result = lodestar("register", "postgres", "pg-1", "--host", "db.internal", "--port", "5432",
                "--metadata", "zone=eu-1", "--metadata", "zone=eu-2");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("metadata[zone] must be given once, but was 'eu-1' and 'eu-2'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aBadRegistrationIsAStructuredUsageErrorWhenJsonWasAskedFor() {
        CliJar.Result result = lodestar("-o", "json", "register", "postgres", "pg-1", "--host", "db.internal",
                "--port", "0");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.out()).isEmpty();
        JsonNode error = error(result);
        assertThat(error.get("error").asText()).isEqualTo("usage");
        assertThat(error.get("exitCode").asInt()).isEqualTo(64);
        assertThat(error.get("message").asText()).contains("port must be between 1 and 65535, but was 0");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void registerWithoutAHostIsAUsageError() {
        CliJar.Result result = lodestar("register", "postgres", "pg-1", "--port", "5432");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("--host");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void weightChangesAnInstancesWeightAndSaysSo() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("weight", "postgres", "pg-1", "5");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("postgres/pg-1 now has weight 5\n");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).get()
                .extracting(ServiceInstance::weight).isEqualTo(5);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void weightAsJsonPrintsTheInstanceAfterTheChange() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("weight", "postgres", "pg-1", "0", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.json().get("id").asText()).isEqualTo("pg-1");
        assertThat(result.json().get("weight").asInt()).isZero();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void weightOfAnUnknownInstanceExitsWith1() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("weight", "postgres", "pg-9", "5");
        CliJar.Result json = lodestar("weight", "postgres", "pg-9", "5", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
        assertThat(result.err()).contains("No instance 'pg-9' of service 'postgres'");
        assertThat(json.exitCode()).as(json.toString()).isEqualTo(1);
        assertThat(error(json).get("error").asText()).isEqualTo("not_found");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aWeightOutsideTheRangeIsAUsageErrorNamingTheRuleAndChangesNothing() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("weight", "postgres", "pg-1", "10001");
        CliJar.Result json = lodestar("-o", "json", "weight", "postgres", "pg-1", "heavy");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("weight must be between 0 and 10000, but was 10001");
        assertThat(json.exitCode()).as(json.toString()).isEqualTo(64);
        assertThat(error(json).get("error").asText()).isEqualTo("usage");
        assertThat(error(json).get("message").asText())
                .contains("weight must be a whole number between 0 and 10000, but was 'heavy'");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).get()
                .extracting(ServiceInstance::weight).isEqualTo(100);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void deregisterWithYesRemovesTheInstance() {
        registerPersistent("postgres", "pg-1");
        registerPersistent("postgres", "pg-2");

        CliJar.Result result = lodestar("deregister", "postgres", "pg-1", "--yes");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("deregistered postgres/pg-1\n");
        assertThat(sdk.directDiscovery().getInstances("postgres")).extracting(ServiceInstance::instanceId)
                .containsExactly("pg-2");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void deregisterAsJsonSaysWhatWasRemoved() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("deregister", "postgres", "pg-1", "-y", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.json().get("service").asText()).isEqualTo("postgres");
        assertThat(result.json().get("instance").asText()).isEqualTo("pg-1");
        assertThat(result.json().get("deregistered").asBoolean()).isTrue();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void deregisterOfAnUnknownInstanceExitsWith1LikeEvict() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("deregister", "postgres", "pg-9", "--yes");
        CliJar.Result json = lodestar("deregister", "postgres", "pg-9", "--yes", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
        assertThat(result.err()).contains("No instance 'pg-9' of 'postgres' in namespace '" + namespace + "'");
        assertThat(json.exitCode()).as(json.toString()).isEqualTo(1);
        assertThat(error(json).get("error").asText()).isEqualTo("not_found");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void deregisterOfABadIdNamesTheFieldAndTheRule() {
        CliJar.Result result = lodestar("deregister", "postgres", "pg 1", "--yes", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(error(result).get("message").asText()).contains("instanceId must be", "but was 'pg 1'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void deregisterWithoutYesIsRefusedWhenStandardInputIsNotATerminal() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("deregister", "postgres", "pg-1");
        CliJar.Result json = lodestar("deregister", "postgres", "pg-1", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("deregister postgres/pg-1 in namespace " + namespace
                + " needs a confirmation", "give --yes to confirm");
        assertThat(json.exitCode()).as(json.toString()).isEqualTo(64);
        assertThat(json.out()).isEmpty();
        assertThat(error(json).get("error").asText()).isEqualTo("usage");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).isPresent();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void onATerminalDeregisterAsksAndYesGoesAhead() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = onTerminal("y\n", "deregister", "postgres", "pg-1");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("Really deregister postgres/pg-1 in namespace " + namespace + "? [y/N]",
                "deregistered postgres/pg-1");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void onATerminalAnythingButYesChangesNothing() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = onTerminal("n\n", "deregister", "postgres", "pg-1");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.out()).contains("not confirmed: nothing changed");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).isPresent();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void purgeRemovesWhatARemovedServiceLeftSoItStartsOverAtRevision1() {
        registerPersistent("postgres", "pg-1");
        registerPersistent("postgres", "pg-2");
        sdk.registry().deregister("postgres", "pg-1");
        sdk.registry().deregister("postgres", "pg-2");

        CliJar.Result result = lodestar("purge", "postgres", "--yes");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("purged postgres\n");
        registerPersistent("postgres", "pg-1");
        assertThat(sdk.directDiscovery().getSnapshot("postgres").revision()).isEqualTo(1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void purgeAsJsonSaysWhatWasPurged() {
        registerPersistent("postgres", "pg-1");
        sdk.registry().deregister("postgres", "pg-1");

        CliJar.Result result = lodestar("purge", "postgres", "--yes", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.json().get("service").asText()).isEqualTo("postgres");
        assertThat(result.json().get("purged").asBoolean()).isTrue();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void purgeOfAServiceThatLeftNothingExitsWith1() {
        CliJar.Result result = lodestar("purge", "nobody", "--yes");
        CliJar.Result json = lodestar("purge", "nobody", "--yes", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
        assertThat(result.err()).contains("Service 'nobody' left nothing to purge in namespace '" + namespace + "'");
        assertThat(error(json).get("error").asText()).isEqualTo("not_found");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void purgeOfAServiceWithInstancesIsAConflictAndRemovesNothing() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("purge", "postgres", "--yes", "-o", "json");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
        assertThat(error(result).get("error").asText()).isEqualTo("conflict");
        assertThat(error(result).get("message").asText()).contains("Cannot purge service 'postgres'",
                "deregister or evict them first");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).isPresent();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void purgeOfABadIdNamesTheFieldAndTheRule() {
        CliJar.Result result = lodestar("purge", "bad service", "--yes");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("serviceId must be", "but was 'bad service'");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void purgeWithoutYesIsRefusedWhenStandardInputIsNotATerminal() {
        registerPersistent("postgres", "pg-1");
        sdk.registry().deregister("postgres", "pg-1");
        long revision = sdk.directDiscovery().getSnapshot("postgres").revision();

        CliJar.Result result = lodestar("purge", "postgres");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("purge service postgres in namespace " + namespace
                + " needs a confirmation", "give --yes to confirm");
        registerPersistent("postgres", "pg-1");
        assertThat(sdk.directDiscovery().getSnapshot("postgres").revision()).isGreaterThan(revision);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void evictWithoutYesIsRefusedWhenStandardInputIsNotATerminal() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = lodestar("evict", "postgres", "pg-1");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(64);
        assertThat(result.err()).contains("evict postgres/pg-1 in namespace " + namespace
                + " needs a confirmation", "give --yes to confirm");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).isPresent();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void onATerminalEvictAsksAndYesGoesAhead() {
        registerPersistent("postgres", "pg-1");

        CliJar.Result result = onTerminal("yes\n", "evict", "postgres", "pg-1");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("Really evict postgres/pg-1 in namespace " + namespace + "? [y/N]",
                "evicted postgres/pg-1");
        assertThat(sdk.directDiscovery().getInstance("postgres", "pg-1")).isEmpty();
    }
}
