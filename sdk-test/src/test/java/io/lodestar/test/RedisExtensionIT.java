package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link RedisTest} injects shared and private servers into constructors, lifecycle and test methods. */
@RedisTest
class RedisExtensionIT {

    private static RedisServer fromBeforeAll;
    private static RedisServer privateFromBeforeAll;
    private static ManagedRedisServer privateFromTest;

    private final RedisServer fromConstructor;
    private RedisServer fromBeforeEach;

    RedisExtensionIT(RedisServer redis) {
        this.fromConstructor = redis;
    }

    @BeforeAll
    static void beforeAll(RedisServer redis, @Private RedisServer privateRedis) {
        fromBeforeAll = redis;
        privateFromBeforeAll = privateRedis;
    }

    @BeforeEach
    void beforeEach(RedisServer redis) {
        fromBeforeEach = redis;
    }

    @Test
    void injectsTheSharedServerEverywhere(RedisServer redis) {
        assertThat(redis).isSameAs(TestRedis.standalone())
                .isSameAs(fromConstructor)
                .isSameAs(fromBeforeAll)
                .isSameAs(fromBeforeEach);
    }

    @Test
    void injectsTheSharedCluster(RedisCluster cluster) {
        assertThat(cluster).isSameAs(TestRedis.cluster());
        assertThat(cluster.masters()).hasSize(3);
    }

    @Test
    void privateServerFromBeforeAllLivesForTheClass() throws Exception {
        assertThat(privateFromBeforeAll.port()).isNotEqualTo(fromBeforeAll.port());
        connect(privateFromBeforeAll.port());
    }

    @Test
    void injectsAFreshPrivateServer(@Private RedisServer redis) throws Exception {
        // when
        privateFromTest = (ManagedRedisServer) redis;

        // then
        assertThat(redis).isNotSameAs(TestRedis.standalone());
        assertThat(redis.port()).isNotEqualTo(TestRedis.standalone().port());
        assertThat(redis.isManaged()).isTrue();
        connect(redis.port());
    }

    @AfterAll
    static void thePrivateServerOfTheTestWasClosedAfterIt() {
        assertThat(privateFromTest).as("injectsAFreshPrivateServer ran").isNotNull();
        assertThat(privateFromTest.isRunning()).isFalse();
        assertThat(Files.exists(privateFromTest.dataDir())).isFalse();
        assertThatThrownBy(() -> connect(privateFromTest.port())).isInstanceOf(ConnectException.class);
    }

    private static void connect(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        }
    }
}
