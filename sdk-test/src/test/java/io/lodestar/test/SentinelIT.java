package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A private Sentinel deployment: a master found through the sentinel, crashes, clean-up. */
class SentinelIT {

    private RedisSentinel sentinel;
    private RedisClient client;

    @BeforeEach
    void start() {
        sentinel = TestRedis.startSentinel();
        client = RedisClient.create(RedisURI.create(sentinel.uri()));
        client.setOptions(ClientOptions.builder().autoReconnect(false).build());
    }

    @AfterEach
    void stop() {
        Lettuce.shutdown(client);
        sentinel.close();
    }

    @Test
    void aClientFindsTheMasterThroughTheSentinelUri() {
        // when
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().set("SentinelIT:k", "v");

            // then: the write landed on the master, whose port is not the sentinel's
            assertThat(connection.sync().ping()).isEqualTo("PONG");
            assertThat(connection.sync().info("replication")).contains("role:master");
        }
        assertThat(sentinel.uri()).isEqualTo("redis-sentinel://127.0.0.1:" + sentinel.port() + "#lodestar");
        assertThat(List.of(sentinel.port(), sentinel.master().port())).doesNotContain(6379, 26379);
        assertThat(sentinel.master().port()).isNotEqualTo(sentinel.port());
        assertThat(RedisVersion.parse(sentinel.version()).isSupported()).isTrue();
        try (RedisClient direct = Lettuce.client(sentinel.master());
             StatefulRedisConnection<String, String> connection = direct.connect()) {
            assertThat(connection.sync().get("SentinelIT:k")).isEqualTo("v");
        }
    }

    @Test
    void theSentinelReportsTheMasterAndAnswersPing() throws Exception {
        // when
        try (Resp resp = Resp.connect(sentinel.host(), sentinel.port(), ServerInfo.TIMEOUT)) {
            // then
            assertThat(resp.callString("PING")).isEqualTo("PONG");
            assertThat(ServerInfo.info(resp, "server")).containsEntry("redis_mode", "sentinel");
            assertThat(resp.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", RedisSentinel.MASTER_NAME))
                    .isEqualTo(List.of("127.0.0.1", Integer.toString(sentinel.master().port())));
        }
    }

    @Test
    void aRestartedMasterIsFoundAgainAtTheSameAddressWithoutItsData() {
        // given
        int port = sentinel.master().port();
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().set("SentinelIT:k", "v");
        }
        sentinel.master().kill();
        assertThatThrownBy(client::connect).isInstanceOf(RedisConnectionException.class);

        // when: restart returns once the sentinel reports the master up again
        sentinel.master().restart();

        // then
        assertThat(sentinel.master().port()).isEqualTo(port);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
            assertThat(connection.sync().get("SentinelIT:k")).isNull();
        }
    }

    @Test
    void closingTheMasterViewDoesNothing() {
        // when
        sentinel.master().close();

        // then
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        }
    }

    @Test
    void closeStopsBothProcessesAndDeletesTheirDirectories() {
        // given
        List<ManagedRedisServer> servers = ((LocalRedisSentinel) sentinel).servers();
        List<Path> dirs = servers.stream().map(ManagedRedisServer::dataDir).toList();
        List<Long> pids = servers.stream().map(ManagedRedisServer::pid).toList();
        assertThat(dirs.get(0).resolve("sentinel.conf")).exists();

        // when
        sentinel.close();
        sentinel.close(); // idempotent

        // then
        assertThat(dirs).allSatisfy(dir -> assertThat(Files.exists(dir)).isFalse());
        assertThat(pids).allSatisfy(pid ->
                assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true)));
        assertThatThrownBy(() -> connect(sentinel.port())).isInstanceOf(ConnectException.class);
        assertThatThrownBy(() -> connect(sentinel.master().port())).isInstanceOf(ConnectException.class);
        assertThatThrownBy(() -> sentinel.master().restart())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("restart() of the master on a closed private Redis Sentinel");
    }

    private static void connect(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        }
    }
}
