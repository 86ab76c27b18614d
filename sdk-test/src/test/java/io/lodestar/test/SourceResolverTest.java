package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lodestar.test.SourceResolver.Purpose;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookup order and the step-5 message, on a machine described by a fake {@link SourceResolver.Environment}. */
class SourceResolverTest {

    @TempDir
    Path tmp;

    private final FakeEnvironment env = new FakeEnvironment();

    @Test
    void nothingInstalledSaysWhatToInstall() {
        // given: no URI, nothing on PATH, no embedded binary, no Docker

        // when / then
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.SHARED_STANDALONE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No Redis 7.0+ found for the shared Redis server. Tried, in order:")
                .hasMessageContaining("1. LODESTAR_TEST_REDIS_URI: not set")
                .hasMessageContaining("2. redis-server on PATH: not found")
                .hasMessageContaining(
                        "3. embedded-redis jar: org.signal:embedded-redis is not on the class path")
                .hasMessageContaining("4. Testcontainers: Docker is not available")
                .hasMessageContaining("sudo apt-get install redis-server")
                .hasMessageContaining("export LODESTAR_TEST_REDIS_URI=redis://host:port")
                .hasMessageContaining("-DLODESTAR_TEST_REDIS_BINARY=/path/to/redis-server")
                .hasMessageContaining("start Docker, with org.testcontainers:testcontainers on the test class path,"
                        + " so that Testcontainers can run redis:7.4");
    }

    @Test
    void onMacTheHintIsBrew() {
        // given
        env.os = "mac os x";

        // when / then
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.PRIVATE_STANDALONE))
                .hasMessageContaining("brew install redis")
                .hasMessageNotContaining("apt-get");
    }

    @Test
    void aClusterNeverSuggestsAUriOrDocker() {
        // given
        env.docker = true;

        // when / then
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.CLUSTER))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("for a local Redis Cluster")
                .hasMessageContaining("Testcontainers: not used for a cluster")
                .hasMessageNotContaining("export LODESTAR_TEST_REDIS_URI")
                .hasMessageNotContaining("start Docker");
    }

    @Test
    void aSentinelAndATlsServerNeverUseDockerEither() {
        // given
        env.docker = true;

        // when / then
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.SENTINEL))
                .hasMessageContaining("for a local Redis Sentinel")
                .hasMessageContaining("Testcontainers: not used for a Sentinel")
                .hasMessageNotContaining("start Docker");
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.TLS))
                .hasMessageContaining("for a local Redis server with TLS")
                .hasMessageContaining("Testcontainers: not used for a TLS server")
                .hasMessageNotContaining("start Docker");
    }

    @Test
    void theUriComesFirstForTheSharedServer() throws IOException {
        // given
        env.settings.put("LODESTAR_TEST_REDIS_URI", "redis://10.0.0.5:7000");
        env.path.add(binaryDir("bin", "7.2.4"));

        // when
        RedisSource source = new SourceResolver(env).resolve(Purpose.SHARED_STANDALONE);

        // then
        assertThat(source).isInstanceOf(RedisSource.External.class);
        assertThat(source.describe()).isEqualTo("external Redis redis://10.0.0.5:7000 from LODESTAR_TEST_REDIS_URI");
    }

    @Test
    void privateServersIgnoreTheUri() throws IOException {
        // given
        env.settings.put("LODESTAR_TEST_REDIS_URI", "redis://10.0.0.5:7000");
        Path bin = binaryDir("bin", "7.2.4");
        env.path.add(bin);

        // when
        RedisSource source = new SourceResolver(env).resolve(Purpose.PRIVATE_STANDALONE);

        // then
        assertThat(source.describe()).isEqualTo("redis-server 7.2.4 from PATH (" + bin.resolve("redis-server") + ")");
    }

    @Test
    void theFirstUsableBinaryOnPathWins() throws IOException {
        // given
        Path old = binaryDir("old", "6.2.14");
        Path good = binaryDir("good", "7.0.15");
        Path later = binaryDir("later", "7.4.0");
        env.path.addAll(List.of(tmp.resolve("missing"), old, good, later));

        // when
        RedisSource.Binary source = (RedisSource.Binary) new SourceResolver(env).resolve(Purpose.PRIVATE_STANDALONE);

        // then
        assertThat(source.path()).isEqualTo(good.resolve("redis-server"));
        assertThat(source.version()).isEqualTo(RedisVersion.parse("7.0.15"));
    }

    @Test
    void anOldBinaryOnPathFallsThroughToTheEmbeddedOne() throws IOException {
        // given
        Path old = binaryDir("old", "6.0.16");
        env.path.add(old);
        env.embedded = binaryDir("embedded", "7.0.15").resolve("redis-server");

        // when
        RedisSource source = new SourceResolver(env).resolve(Purpose.PRIVATE_STANDALONE);

        // then
        assertThat(source.describe()).startsWith("redis-server 7.0.15 from the org.signal:embedded-redis jar");
    }

    @Test
    void anOldBinaryIsNamedInTheFailureMessage() throws IOException {
        // given
        Path old = binaryDir("old", "6.0.16");
        env.path.add(old);

        // when / then
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.PRIVATE_STANDALONE))
                .hasMessageContaining(old.resolve("redis-server") + " is Redis 6.0.16, older than 7.0.0");
    }

    @Test
    void theForcedBinaryBeatsPath() throws IOException {
        // given
        env.path.add(binaryDir("bin", "7.4.0"));
        Path forced = binaryDir("forced", "7.0.15").resolve("redis-server");
        env.settings.put("LODESTAR_TEST_REDIS_BINARY", forced.toString());

        // when
        RedisSource source = new SourceResolver(env).resolve(Purpose.CLUSTER);

        // then
        assertThat(source.describe()).isEqualTo("redis-server 7.0.15 from LODESTAR_TEST_REDIS_BINARY (" + forced + ")");
    }

    @Test
    void aForcedOldBinaryFailsAtOnce() throws IOException {
        // given
        Path forced = binaryDir("forced", "6.2.14").resolve("redis-server");
        env.settings.put("LODESTAR_TEST_REDIS_BINARY", forced.toString());
        env.embedded = binaryDir("embedded", "7.0.15").resolve("redis-server");

        // when / then
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.PRIVATE_STANDALONE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LODESTAR_TEST_REDIS_BINARY names redis-server 6.2.14")
                .hasMessageContaining("needs Redis 7.0.0 or newer");
    }

    @Test
    void aForcedMissingBinaryFailsAtOnce() {
        // given
        env.settings.put("LODESTAR_TEST_REDIS_BINARY", tmp.resolve("nope").toString());

        // when / then
        assertThatThrownBy(() -> new SourceResolver(env).resolve(Purpose.PRIVATE_STANDALONE))
                .hasMessageContaining("LODESTAR_TEST_REDIS_BINARY must name an executable redis-server, but was '"
                        + tmp.resolve("nope") + "' (no such file)");
    }

    @Test
    void dockerIsTheLastResortForStandalone() {
        // given
        env.docker = true;

        // when
        RedisSource source = new SourceResolver(env).resolve(Purpose.SHARED_STANDALONE);

        // then
        assertThat(source).isEqualTo(new RedisSource.Docker("redis:7.4"));
    }

    /** A directory with an executable file redis-server that the fake environment reports as {@code version}. */
    private Path binaryDir(String name, String version) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name));
        Path binary = Files.writeString(dir.resolve("redis-server"), "#!/bin/sh\n");
        assertThat(binary.toFile().setExecutable(true)).isTrue();
        env.versions.put(binary, RedisVersion.parse(version));
        return dir;
    }

    private static final class FakeEnvironment implements SourceResolver.Environment {
        final Map<String, String> settings = new HashMap<>();
        final List<Path> path = new ArrayList<>();
        final Map<Path, RedisVersion> versions = new HashMap<>();
        Path embedded;
        boolean docker;
        String os = "linux";

        @Override
        public String setting(String name) {
            return settings.get(name);
        }

        @Override
        public List<Path> path() {
            return path;
        }

        @Override
        public RedisVersion versionOf(Path binary) throws IOException {
            RedisVersion version = versions.get(binary);
            if (version == null) {
                throw new IOException("not a redis-server");
            }
            return version;
        }

        @Override
        public Optional<Path> embeddedBinary(StringBuilder notes) {
            if (embedded == null) {
                notes.append("org.signal:embedded-redis is not on the class path");
            }
            return Optional.ofNullable(embedded);
        }

        @Override
        public boolean dockerAvailable(StringBuilder notes) {
            if (!docker) {
                notes.append("Docker is not available");
            }
            return docker;
        }

        @Override
        public String osName() {
            return os;
        }
    }
}
