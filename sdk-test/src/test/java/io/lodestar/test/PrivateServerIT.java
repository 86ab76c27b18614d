package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A private, managed server: fault injection and clean-up. */
class PrivateServerIT {

    private RedisServer redis;
    private RedisClient client;

    @BeforeEach
    void start() {
        redis = TestRedis.startStandalone();
        client = Lettuce.client(redis);
    }

    @AfterEach
    void stop() {
        Lettuce.shutdown(client);
        redis.close();
    }

    @Test
    void killClosesThePort() {
        // given
        assertThat(ping(redis)).isEqualTo("PONG");

        // when
        redis.kill();

        // then
        assertThatThrownBy(() -> connect(redis.port()))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("Connection refused");
    }

    @Test
    void restartAnswersOnTheSamePortWithoutTheOldData() {
        // given
        int port = redis.port();
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().set("PrivateServerIT:k", "v");
        }
        redis.kill();

        // when
        redis.restart();

        // then
        assertThat(redis.port()).isEqualTo(port);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
            assertThat(connection.sync().get("PrivateServerIT:k")).isNull();
        }
    }

    @Test
    void restartOfARunningServerKillsItFirst() {
        // given
        long pidBefore = ((ManagedRedisServer) redis).pid();

        // when
        redis.restart();

        // then
        assertThat(ProcessHandle.of(pidBefore).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        assertThat(((ManagedRedisServer) redis).pid()).isNotEqualTo(pidBefore);
        assertThat(ping(redis)).isEqualTo("PONG");
    }

    @Test
    void restartFailsClearlyWhileAStrangerHoldsThePort() throws Exception {
        // given
        redis.kill();
        try (ServerSocket stranger = new ServerSocket(redis.port(), 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(stranger.getLocalPort()).isEqualTo(redis.port());

            // when / then
            assertThatThrownBy(() -> ((ManagedRedisServer) redis).restart(Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Cannot restart private Redis: port " + redis.port()
                            + " has been taken by another process");
        }

        // when the port is free again
        redis.restart();

        // then
        assertThat(ping(redis)).isEqualTo("PONG");
    }

    @Test
    void disconnectClientsOfTypePubsubKillsOnlySubscribers() {
        // given
        StatefulRedisPubSubConnection<String, String> subscriber = client.connectPubSub();
        subscriber.sync().subscribe("PrivateServerIT:channel");
        StatefulRedisConnection<String, String> normal = client.connect();

        // when
        long killed = redis.disconnectClients("pubsub");

        // then
        assertThat(killed).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !subscriber.isOpen());
        assertThat(normal.sync().ping()).isEqualTo("PONG");
        normal.close();
    }

    @Test
    void disconnectClientsRejectsAnUnknownType() {
        assertThatThrownBy(() -> redis.disconnectClients("bogus"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CLIENT KILL TYPE bogus was rejected");
    }

    @Test
    void closeStopsTheProcessAndDeletesTheDataDirectory() {
        // given
        ManagedRedisServer managed = (ManagedRedisServer) redis;
        Path dir = managed.dataDir();
        long pid = managed.pid();
        assertThat(dir.resolve("redis.log")).exists();

        // when
        redis.close();
        redis.close(); // idempotent

        // then
        assertThat(Files.exists(dir)).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        assertThatThrownBy(() -> connect(redis.port())).isInstanceOf(ConnectException.class);
        assertThatThrownBy(redis::restart)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("restart() on a closed private Redis");
    }

    @Test
    void anExternalServerCannotBeKilledButCanDisconnectClients() {
        // given: the private server seen as if it came from LODESTAR_TEST_REDIS_URI
        RedisServer external = TestRedis.start(
                new RedisSource.External(RedisEndpoint.parse(redis.uri(), "LODESTAR_TEST_REDIS_URI")), "test");
        StatefulRedisPubSubConnection<String, String> subscriber = client.connectPubSub();
        subscriber.sync().subscribe("PrivateServerIT:external");

        // when / then
        assertThat(external.isManaged()).isFalse();
        assertThat(external.uri()).isEqualTo(redis.uri());
        assertThat(external.version()).isEqualTo(redis.version());
        assertThatThrownBy(external::kill)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("kill() is not supported on the external Redis " + redis.uri())
                .hasMessageContaining("Use TestRedis.startStandalone()");
        assertThatThrownBy(external::restart).isInstanceOf(UnsupportedOperationException.class);
        assertThat(external.disconnectClients("pubsub")).isEqualTo(1);
        external.close();
        assertThat(ping(redis)).isEqualTo("PONG");
    }

    @Test
    void aFrozenServerKeepsItsConnectionsOpenAndAnswersNothingUntilThawed() {
        // given
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.setTimeout(Duration.ofMillis(300));

            // when
            redis.freeze();

            // then
            try {
                assertThatThrownBy(() -> connection.sync().ping()).isInstanceOf(RedisCommandTimeoutException.class);
                assertThat(connection.isOpen()).isTrue();
            } finally {
                redis.thaw();
            }
            connection.setTimeout(Duration.ofSeconds(5));
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        }
    }

    @Test
    void closeEndsAFrozenServer() {
        // given
        long pid = ((ManagedRedisServer) redis).pid();
        redis.freeze();

        // when
        redis.close();

        // then
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    private String ping(RedisServer server) {
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().ping();
        }
    }

    private static void connect(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        }
    }
}
