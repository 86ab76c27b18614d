package io.lodestar.redis;

import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The snapshot directory's files: safe names for any id, atomic replace, and nothing trusted blindly. */
class ConfigSnapshotsTest {
    private static final Executor DIRECT = Runnable::run;
    private static final String REDIS = "redis://***@redis-a:6379";

    @TempDir
    Path directory;

    @Test
    void anEntryIsWrittenAndReadBackWithTheIncarnationOfItsKeys() {
        ConfigSnapshots snapshots = ConfigSnapshots.of(Optional.of(directory), "prod", REDIS, DIRECT);
        ConfigEntry entry = entry("app/db.yaml", "url: x", 3);

        snapshots.save("app/db.yaml", Optional.of(entry), "inc-1");

        assertThat(snapshots.read("app/db.yaml"))
                .isEqualTo(new SyncedView.Versioned<>(3, Optional.of(entry), null, "inc-1"));
        assertThat(snapshots.file("app/db.yaml").getParent()).isEqualTo(directory.resolve("prod"));
    }

    @Test
    void aFileReadFromAnotherRedisDeploymentIsIgnored() {
        ConfigSnapshots staging = ConfigSnapshots.of(Optional.of(directory), "prod", "redis://redis-b:6379", DIRECT);
        staging.save("app", Optional.of(entry("app", "staging", 1)), "inc-1");

        ConfigSnapshots prod = ConfigSnapshots.of(Optional.of(directory), "prod", REDIS, DIRECT);

        assertThat(prod.read("app")).isNull();
    }

    @Test
    void onPosixOnlyTheOwnerCanReadASnapshot() throws IOException {
        assumeTrue(directory.getFileSystem().supportedFileAttributeViews().contains("posix"));
        ConfigSnapshots snapshots = ConfigSnapshots.of(Optional.of(directory), "prod", REDIS, DIRECT);

        snapshots.save("secrets", Optional.of(entry("secrets", "password=x", 1)), "inc-1");

        assertThat(Files.getPosixFilePermissions(snapshots.file("secrets")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void aNewerStateReplacesTheFileAndAnAbsentOneDeletesIt() {
        ConfigSnapshots snapshots = ConfigSnapshots.of(Optional.of(directory), "prod", REDIS, DIRECT);
        snapshots.save("app", Optional.of(entry("app", "v1", 1)), "inc-1");

        snapshots.save("app", Optional.of(entry("app", "v2", 2)), "inc-1");
        assertThat(snapshots.read("app").value()).map(ConfigEntry::content).contains("v2");

        snapshots.save("app", Optional.empty(), "inc-1");
        assertThat(snapshots.read("app")).isNull();
        assertThat(Files.exists(snapshots.file("app"))).isFalse();
    }

    @Test
    void fileNamesAreSafeAndDistinctForIdsWithSlashesDotsAndCase() {
        ConfigSnapshots snapshots = ConfigSnapshots.of(Optional.of(directory), "prod", REDIS, DIRECT);

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
        ConfigSnapshots prod = ConfigSnapshots.of(Optional.of(directory), "prod", REDIS, DIRECT);
        prod.save("app", Optional.of(entry("app", "good", 1)), "inc-1");
        Path file = prod.file("app");

        Files.writeString(file, Files.readString(file).replace("\"good\"", "\"tampered\""));
        assertThat(prod.read("app")).isNull();

        Files.writeString(file, "{not json");
        assertThat(prod.read("app")).isNull();
    }

    @Test
    void withoutADirectoryNothingIsWrittenOrRead() {
        ConfigSnapshots none = ConfigSnapshots.of(Optional.empty(), "prod", REDIS, DIRECT);

        none.save("app", Optional.of(entry("app", "x", 1)), "inc-1");

        assertThat(none.enabled()).isFalse();
        assertThat(none.read("app")).isNull();
    }

    private static ConfigEntry entry(String id, String content, long version) {
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L);
        return new ConfigEntry(id, content, ConfigFormat.YAML, version, ConfigSnapshots.sha1(content), at, at);
    }
}
