package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/** A private TLS-only server: TLS through the URI, certificate checks against the kit's CA, clean-up. */
class TlsIT {

    private TlsRedisServer redis;

    @BeforeEach
    void start() {
        redis = TestRedis.startTls();
    }

    @AfterEach
    void stop() {
        redis.close();
    }

    @Test
    void answersPingThroughTheRedissUri() {
        // when
        String pong = ping(RedisURI.create(redis.uri()), null);

        // then
        assertThat(pong).isEqualTo("PONG");
        assertThat(redis.uri()).isEqualTo("rediss://127.0.0.1:" + redis.port() + "?verifyPeer=NONE");
        assertThat(redis.port()).isNotEqualTo(6379);
        assertThat(redis.isManaged()).isTrue();
    }

    @Test
    void aClientThatVerifiesTheCertificateAcceptsItWhenItTrustsTheCa() {
        // given: full verification, chain and host name (127.0.0.1)
        RedisURI verifying = RedisURI.create("rediss://127.0.0.1:" + redis.port());

        // when / then
        assertThat(ping(verifying, SslOptions.builder().trustManager(redis.caCertificate().toFile()).build()))
                .isEqualTo("PONG");
        assertThat(ping(verifying, SslOptions.builder()
                .truststore(redis.trustStore().toFile(), redis.trustStorePassword()).build()))
                .isEqualTo("PONG");
    }

    @Test
    void aClientThatVerifiesTheCertificateRejectsItWithoutTheCa() {
        // given
        RedisURI verifying = RedisURI.create("rediss://127.0.0.1:" + redis.port());

        // when / then
        assertThatThrownBy(() -> ping(verifying, null)).isInstanceOf(RedisConnectionException.class)
                .hasStackTraceContaining("PKIX path building failed");
    }

    @Test
    void thePlainProtocolIsNotSpoken() throws IOException {
        // when / then: the port speaks TLS only, so a plain PING gets no PONG
        assertThatThrownBy(() -> {
            try (Resp resp = Resp.connect(redis.host(), redis.port(), ServerInfo.TIMEOUT)) {
                resp.callString("PING");
            }
        }).isInstanceOf(IOException.class);
        assertThat(ping(RedisURI.create(redis.uri()), null)).isEqualTo("PONG");
    }

    @Test
    void restartKeepsTheCertificatesAndDisconnectClientsWorksThroughTls() throws IOException {
        // given
        byte[] ca = Files.readAllBytes(redis.caCertificate());

        // when
        redis.restart();

        // then
        assertThat(Files.readAllBytes(redis.caCertificate())).isEqualTo(ca);
        assertThat(ping(RedisURI.create("rediss://127.0.0.1:" + redis.port()),
                SslOptions.builder().trustManager(redis.caCertificate().toFile()).build())).isEqualTo("PONG");
        assertThat(redis.disconnectClients("normal")).isZero();
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void closeStopsTheProcessAndDeletesTheKeyWithTheDirectory() throws IOException {
        // given
        ManagedRedisServer server = ((LocalTlsRedisServer) redis).server();
        Path dir = server.dataDir();
        Path key = server.tlsDir().resolve("server.key");
        long pid = server.pid();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");

        // when
        redis.close();
        redis.close(); // idempotent

        // then
        assertThat(Files.exists(dir)).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        assertThatThrownBy(() -> connect(redis.port())).isInstanceOf(ConnectException.class);
        assertThatThrownBy(redis::caCertificate)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("caCertificate() on a closed");
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void aBinaryBuiltWithoutTlsAbortsTheTestInsteadOfFailingIt(@TempDir Path tmp) throws IOException {
        // given: a stand-in that answers the TLS directives as Redis 7.0 built without TLS does
        Path fake = tmp.resolve("redis-server");
        Files.writeString(fake, String.join("\n",
                "#!/bin/sh",
                "echo '*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***'",
                "echo 'Reading the configuration file, at line 2'",
                "echo \">>> 'tls-port \\\"1234\\\"'\"",
                "echo 'Bad directive or wrong number of arguments'",
                "exit 1",
                ""));
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        RedisSource.Binary binary = new RedisSource.Binary(fake, RedisVersion.parse("7.0.15"), "from a test");

        // when / then
        assertThatThrownBy(() -> LocalTlsRedisServer.start(binary, "no-TLS Redis"))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("redis-server 7.0.15 from a test (" + fake + ") was built without TLS support")
                .hasMessageContaining("BUILD_TLS=yes")
                .hasMessageContaining("Bad directive");
    }

    private static String ping(RedisURI uri, SslOptions ssl) {
        RedisClient client = RedisClient.create(uri);
        ClientOptions.Builder options = ClientOptions.builder().autoReconnect(false);
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        client.setOptions(options.build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().ping();
        } finally {
            Lettuce.shutdown(client);
        }
    }

    private static void connect(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        }
    }
}
