package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.UnavailableException;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A client's life: creation that fails releases everything, and a closed client says it is closed. */
class LifecycleIT extends NamespaceTest {
    private RedisClient admin;
    private StatefulRedisConnection<String, String> adminConnection;

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @BeforeEach
    void connectAdmin() {
        admin = RedisClient.create(redisUri());
        adminConnection = admin.connect();
    }

    @AfterEach
    void closeAdmin() {
        adminConnection.close();
        admin.shutdown();
    }

    @Test
    void createsThatFailLeaveNoThreadOrConnectionBehind() throws Exception {
        long threadsBefore = clientThreads();
        long connectionsBefore = connections();
        Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
        String closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = "redis://127.0.0.1:" + socket.getLocalPort();
        }
        LodestarOptions unreachable = LodestarOptions.builder(closedPort).commandTimeout(Duration.ofMillis(500))
                .build();

        for (int attempt = 0; attempt < 3; attempt++) {
            for (UnaryOperator<LodestarOptions.Builder> outOfRange : java.util.List.<UnaryOperator<
                    LodestarOptions.Builder>>of(o -> o.sweepInterval(forever), o -> o.reconcileInterval(forever),
                    o -> o.idleViewTimeout(forever), o -> o.commandTimeout(forever))) {
                assertThatThrownBy(() -> clients.connect(outOfRange))
                        .isInstanceOf(InvalidArgumentException.class)
                        .hasMessageContaining("must be between");
            }
            assertThatThrownBy(() -> RedisLodestar.create(unreachable)).isInstanceOf(UnavailableException.class);
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(clientThreads()).as("lodestar and lettuce threads").isLessThanOrEqualTo(threadsBefore);
            assertThat(connections()).as("connections to Redis").isLessThanOrEqualTo(connectionsBefore);
        });
    }

    private static long clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("lodestar-") || thread.getName().startsWith("lettuce-"))
                .count();
    }

    private long connections() {
        return adminConnection.sync().clientList().lines().filter(line -> !line.isBlank()).count();
    }
}
