package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A relay that stops forwarding without closing anything: what a partition looks like to a client. */
class StallingRelayIT {
    private final StallingRelay relay = StallingRelay.to(TestRedis.standalone());
    private final RedisClient client = RedisClient.create(RedisURI.create(relay.uri()));

    @AfterEach
    void close() {
        Lettuce.shutdown(client);
        relay.close();
    }

    @Test
    void forwardsUntilStalledThenHoldsEverythingBackWithoutClosingAndForwardsItOnResume() {
        // given
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().ping()).isEqualTo("PONG");
            connection.setTimeout(Duration.ofMillis(300));

            // when
            relay.stall();

            // then
            assertThatThrownBy(() -> connection.sync().ping()).isInstanceOf(RedisCommandTimeoutException.class);
            assertThat(connection.isOpen()).isTrue();
            relay.resume();
            connection.setTimeout(Duration.ofSeconds(5));
            assertThat(connection.sync().ping()).isEqualTo("PONG");
        }
    }
}
