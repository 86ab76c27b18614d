package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Step 3: the redis-server shipped in the org.signal:embedded-redis jar, extracted and started for real. */
class EmbeddedBinaryIT {

    private static Path embedded;

    @BeforeAll
    static void extract() {
        StringBuilder notes = new StringBuilder();
        Optional<Path> binary = EmbeddedBinary.extract(EmbeddedBinaryIT.class.getClassLoader(), notes);
        assumeTrue(binary.isPresent(), () -> "embedded-redis has no binary here: " + notes);
        embedded = binary.get();
    }

    @Test
    void isExtractedAsAnExecutableFile() {
        assertThat(embedded).isExecutable();
        assertThat(embedded.getFileName().toString()).matches("redis-server-\\d+\\.\\d+\\.\\d+-(linux|darwin)-\\w+");
    }

    @Test
    void isFoundWhenNothingIsOnPath() {
        // given: the real machine, except that PATH holds no redis-server
        SourceResolver resolver = new SourceResolver(new NoPathEnvironment());

        // when
        RedisSource source = resolver.resolve(SourceResolver.Purpose.PRIVATE_STANDALONE);

        // then
        assertThat(source.describe()).startsWith("redis-server 7.0.15 from the org.signal:embedded-redis jar ("
                + embedded);
        try (RedisServer redis = TestRedis.start(source, "embedded Redis")) {
            assertThat(ping(redis)).isEqualTo("PONG");
            assertThat(redis.version()).isEqualTo("7.0.15");
        }
    }

    @Test
    void canBeForcedWithTheBinarySetting() {
        // given
        System.setProperty(SourceResolver.BINARY_SETTING, embedded.toString());
        try (RedisServer redis = TestRedis.startStandalone()) {
            // when
            RedisSource.Binary binary = ((ManagedRedisServer) redis).binary();

            // then
            assertThat(binary.path()).isEqualTo(embedded);
            assertThat(binary.origin()).isEqualTo("from LODESTAR_TEST_REDIS_BINARY");
            assertThat(ping(redis)).isEqualTo("PONG");
            redis.kill();
            redis.restart();
            assertThat(ping(redis)).isEqualTo("PONG");
        } finally {
            System.clearProperty(SourceResolver.BINARY_SETTING);
        }
    }

    @Test
    void aTakenPortIsRecognisedInTheWordsOfItsCLibrary() throws Exception {
        // given: the embedded binary is linked with musl, which words EADDRINUSE "Address in use"
        ManagedRedisServer redis = ManagedRedisServer.start(new RedisSource.Binary(embedded,
                RedisVersion.parse("7.0.15"), "from the test"), "embedded Redis", List.of(), false);
        try {
            redis.kill();
            try (ServerSocket stranger = new ServerSocket(redis.port(), 1, InetAddress.getByName("127.0.0.1"))) {

                // when / then
                assertThatThrownBy(() -> redis.restart(Duration.ofMillis(500)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("Cannot restart embedded Redis: port " + redis.port()
                                + " has been taken by another process");
            }
        } finally {
            redis.close();
        }
    }

    private static String ping(RedisServer redis) {
        RedisClient client = Lettuce.client(redis);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().ping();
        } finally {
            Lettuce.shutdown(client);
        }
    }

    /** The real environment with an empty PATH and no overrides. */
    private static final class NoPathEnvironment implements SourceResolver.Environment {
        private final SourceResolver.Environment real = SourceResolver.SystemEnvironment.INSTANCE;

        @Override
        public String setting(String name) {
            return null;
        }

        @Override
        public List<Path> path() {
            return List.of();
        }

        @Override
        public RedisVersion versionOf(Path binary) throws IOException {
            return real.versionOf(binary);
        }

        @Override
        public Optional<Path> embeddedBinary(StringBuilder notes) {
            return real.embeddedBinary(notes);
        }

        @Override
        public boolean dockerAvailable(StringBuilder notes) {
            notes.append("not asked in this test");
            return false;
        }

        @Override
        public String osName() {
            return real.osName();
        }
    }
}
