package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared standalone server, through Lettuce. */
class StandaloneIT {

    private static final String NS = "StandaloneIT:";
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = Lettuce.client(TestRedis.standalone());
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        Lettuce.close(connection, client);
    }

    @Test
    void answersPingSetAndGet() {
        // given
        RedisCommands<String, String> redis = connection.sync();

        // when
        String pong = redis.ping();
        redis.set(NS + "greeting", "hello");

        // then
        assertThat(pong).isEqualTo("PONG");
        assertThat(redis.get(NS + "greeting")).isEqualTo("hello");
    }

    @Test
    void reportsAVersionOfAtLeastSevenZero() {
        // when
        String version = TestRedis.standalone().version();

        // then
        assertThat(RedisVersion.parse(version)).isGreaterThanOrEqualTo(new RedisVersion(7, 0, 0));
        assertThat(connection.sync().info("server")).contains("redis_version:" + version);
    }

    @Test
    void isOneServerPerJvmOnLoopbackAndNeverOn6379() {
        // when
        RedisServer first = TestRedis.standalone();
        RedisServer second = TestRedis.standalone();

        // then
        assertThat(second).isSameAs(first);
        assertThat(first.port()).isNotEqualTo(6379);
        assertThat(first.uri()).isEqualTo("redis://" + first.host() + ":" + first.port());
        assertThat(first.isManaged()).isTrue();
    }

    @Test
    void closingTheSharedServerDoesNothing() {
        // given
        RedisServer shared = TestRedis.standalone();

        // when
        shared.close();

        // then
        assertThat(connection.sync().ping()).isEqualTo("PONG");
    }

    @Test
    void describesItsSource() {
        // when
        String description = TestRedis.describeSource();

        // then
        assertThat(description).matches("redis-server \\d+\\.\\d+\\.\\d+ from .+ \\(.+redis-server.*\\)");
    }
}
