package io.lodestar.redis;

import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The snapshot directory's files, for configs and services alike: safe names for any id, atomic replace, owner-only,
 * bounded, and nothing trusted blindly (another namespace's or Redis', corrupt or truncated files are skipped).
 */
class SnapshotsTest {
    private static final Executor DIRECT = Runnable::run;
    private static final String REDIS = "redis://***@redis-a:6379";

    @TempDir
    Path directory;

    @Test
    void anEntryIsWrittenAndReadBackWithTheIncarnationOfItsKeys() {
        Snapshots<Optional<ConfigEntry>> snapshots = Snapshots.configs(Optional.of(directory), "prod", REDIS, DIRECT);
        ConfigEntry entry = entry("app/db.yaml", "url: x", 3);

        snapshots.save("app/db.yaml", state(Optional.of(entry), "inc-1"));

        assertThat(snapshots.read("app/db.yaml"))
                .isEqualTo(new SyncedView.Versioned<>(3, Optional.of(entry), null, "inc-1"));
        assertThat(snapshots.file("app/db.yaml").getParent()).isEqualTo(directory.resolve("prod"));
    }

    @Test
    void aFileReadFromAnotherRedisDeploymentIsIgnored() {
        Snapshots<Optional<ConfigEntry>> staging = Snapshots.configs(Optional.of(directory), "prod", "redis://redis-b:6379", DIRECT);
        staging.save("app", state(Optional.of(entry("app", "staging", 1)), "inc-1"));

        Snapshots<Optional<ConfigEntry>> prod = Snapshots.configs(Optional.of(directory), "prod", REDIS, DIRECT);

        assertThat(prod.read("app")).isNull();
    }

    @Test
    void onPosixOnlyTheOwnerCanReadASnapshot() throws IOException {
        assumeTrue(directory.getFileSystem().supportedFileAttributeViews().contains("posix"));
        Snapshots<Optional<ConfigEntry>> snapshots = Snapshots.configs(Optional.of(directory), "prod", REDIS, DIRECT);

        snapshots.save("secrets", state(Optional.of(entry("secrets", "password=x", 1)), "inc-1"));

        assertThat(Files.getPosixFilePermissions(snapshots.file("secrets")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void aNewerStateReplacesTheFileAndAnAbsentOneDeletesIt() {
        Snapshots<Optional<ConfigEntry>> snapshots = Snapshots.configs(Optional.of(directory), "prod", REDIS, DIRECT);
        snapshots.save("app", state(Optional.of(entry("app", "v1", 1)), "inc-1"));

        snapshots.save("app", state(Optional.of(entry("app", "v2", 2)), "inc-1"));
        assertThat(snapshots.read("app").value()).map(ConfigEntry::content).contains("v2");

        snapshots.save("app", state(Optional.empty(), "inc-1"));
        assertThat(snapshots.read("app")).isNull();
        assertThat(Files.exists(snapshots.file("app"))).isFalse();
    }

    @Test
    void fileNamesAreSafeAndDistinctForIdsWithSlashesDotsAndCase() {
        Snapshots<Optional<ConfigEntry>> snapshots = Snapshots.configs(Optional.of(directory), "prod", REDIS, DIRECT);

        Path nested = snapshots.file("a/../b.yaml");
        Path upper = snapshots.file("App");
        Path lower = snapshots.file("app");

        assertThat(nested.getParent()).isEqualTo(directory.resolve("prod"));
        assertThat(nested.getFileName().toString()).matches("a____b_yaml-[0-9a-f]{32}\\.json");
        assertThat(upper.getFileName().toString().toLowerCase())
                .isNotEqualTo(lower.getFileName().toString().toLowerCase());
        assertThat(snapshots.file("x".repeat(128)).getFileName().toString().length()).isLessThan(120);
    }

    @Test
    void aFileOfAnotherNamespaceOrWithAWrongHashIsIgnored() throws IOException {
        Snapshots<Optional<ConfigEntry>> prod = Snapshots.configs(Optional.of(directory), "prod", REDIS, DIRECT);
        prod.save("app", state(Optional.of(entry("app", "good", 1)), "inc-1"));
        Path file = prod.file("app");

        Files.writeString(file, Files.readString(file).replace("\"good\"", "\"tampered\""));
        assertThat(prod.read("app")).isNull();

        Files.writeString(file, "{not json");
        assertThat(prod.read("app")).isNull();
    }

    @Test
    void withoutADirectoryNothingIsWrittenOrRead() {
        Snapshots<Optional<ConfigEntry>> none = Snapshots.configs(Optional.empty(), "prod", REDIS, DIRECT);

        none.save("app", state(Optional.of(entry("app", "x", 1)), "inc-1"));

        assertThat(none.enabled()).isFalse();
        assertThat(none.read("app")).isNull();
    }

    @Test
    void aServiceListIsWrittenAndReadBackWithItsRevisionDigestAndIncarnation() {
        Snapshots<ServiceSnapshot> services = Snapshots.services(Optional.of(directory), "prod", REDIS, DIRECT);
        SyncedView.Versioned<ServiceSnapshot> orders = orders(7, "orders-1", "orders-2");

        services.save("orders", orders);

        assertThat(services.read("orders")).isEqualTo(orders);
        assertThat(services.file("orders").getParent()).isEqualTo(directory.resolve("prod").resolve("services"));
    }

    @Test
    void aTruncatedOrTamperedServiceFileIsSkippedNeverServed() throws IOException {
        Snapshots<ServiceSnapshot> services = Snapshots.services(Optional.of(directory), "prod", REDIS, DIRECT);
        services.save("orders", orders(7, "orders-1", "orders-2"));
        Path file = services.file("orders");
        String whole = Files.readString(file);

        Files.writeString(file, whole.substring(0, whole.length() / 2));
        assertThat(services.read("orders")).as("truncated").isNull();

        Files.writeString(file, whole.replace("10.0.0.1", "10.6.6.6"));
        assertThat(services.read("orders")).as("an instance changed behind the hash").isNull();
    }

    @Test
    void aDirectoryOfAnotherNamespaceOrRedisIsRefusedWithOneLogLine() throws IOException {
        Snapshots<ServiceSnapshot> staging = Snapshots.services(Optional.of(directory), "prod",
                "redis://redis-b:6379", DIRECT);
        staging.save("orders", orders(1, "orders-1"));
        staging.save("payments", orders(1, "orders-1"));
        Snapshots<ServiceSnapshot> prod = Snapshots.services(Optional.of(directory), "prod", REDIS, DIRECT);

        try (LogCapture log = LogCapture.start()) {
            assertThat(prod.read("orders")).isNull();
            assertThat(prod.read("payments")).isNull();

            assertThat(log.lines("WARN", "Ignoring service snapshot")).hasSize(1)
                    .first().asString().contains("redis-b:6379", REDIS);
        }
    }

    @Test
    void onPosixTheDirectoryAndEveryFileAreTheOwnersOnly() throws IOException {
        assumeTrue(directory.getFileSystem().supportedFileAttributeViews().contains("posix"));
        Snapshots<ServiceSnapshot> services = Snapshots.services(Optional.of(directory.resolve("new")), "prod",
                REDIS, DIRECT);

        services.save("orders", orders(1, "orders-1"));

        assertThat(Files.getPosixFilePermissions(services.file("orders").getParent()))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(services.file("orders")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void pastItsLimitOfFilesTheDirectoryTakesNoNewTopicButStillReplacesOnesItHas() throws IOException {
        Snapshots<ServiceSnapshot> services = Snapshots.services(Optional.of(directory), "prod", REDIS, DIRECT);
        services.save("orders", orders(1, "orders-1"));
        Path folder = services.file("orders").getParent();
        for (int i = 1; i < Snapshots.MAX_FILES; i++) {
            Files.createFile(folder.resolve("filler-" + i + ".json"));
        }
        Snapshots<ServiceSnapshot> reopened = Snapshots.services(Optional.of(directory), "prod", REDIS, DIRECT);

        reopened.save("payments", orders(1, "orders-1"));
        reopened.save("orders", orders(2, "orders-1", "orders-2"));

        assertThat(reopened.read("payments")).isNull();
        assertThat(reopened.read("orders").revision()).isEqualTo(2);
    }

    private static SyncedView.Versioned<ServiceSnapshot> orders(long revision, String... ids) {
        List<ServiceInstance> instances = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            instances.add(ServiceInstance.builder("orders", ids[i]).host("10.0.0." + (i + 1)).port(8080)
                    .metadata(Map.of("zone", "eu-1", "quote", "a\"b"))
                    .registeredAt(Instant.ofEpochMilli(1_700_000_000_000L)).build());
        }
        return new SyncedView.Versioned<>(revision, new ServiceSnapshot("orders", revision, instances),
                "digest-" + revision, "inc-1");
    }

    private static SyncedView.Versioned<Optional<ConfigEntry>> state(Optional<ConfigEntry> entry,
                                                                     String incarnation) {
        return new SyncedView.Versioned<>(entry.map(ConfigEntry::version).orElse(0L), entry, null, incarnation);
    }

    private static ConfigEntry entry(String id, String content, long version) {
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L);
        return new ConfigEntry(id, content, ConfigFormat.YAML, version, Digests.sha1Hex(content), at, at);
    }
}
