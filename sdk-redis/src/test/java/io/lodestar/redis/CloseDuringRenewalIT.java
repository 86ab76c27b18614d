package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Renewals still in flight when their client closes are cut off by that close: they are neither failures (counted
 * in health, logged as warnings, one per instance) nor retried. Closing a client with thousands of leases logged
 * thousands of "Renewing … failed" warnings.
 */
class CloseDuringRenewalIT extends NamespaceTest {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void renewalsInFlightWhenTheClientClosesAreNotFailures() {
        // given 20 leases renewed every second, and Redis holding every command for 3 s
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false));
        for (int i = 0; i < 20; i++) {
            owner.registry().register(instance("orders", "orders-" + i).toBuilder().ttl(Duration.ofSeconds(3)).build());
        }
        RedisServiceRegistry registry = (RedisServiceRegistry) owner.registry();
        long registeredAt = System.nanoTime();
        redis().clientPause(3_000);
        // renewals are due a third of the TTL after registering: once that has passed they wait in Redis
        await().atMost(Duration.ofSeconds(3)).until(() -> System.nanoTime() - registeredAt > 1_300_000_000L);

        // when the client closes meanwhile
        owner.close();

        // then, once Redis answers again (every cut-off call has completed by then), no renewal counts as failed
        assertThat(redis().ping()).isEqualTo("PONG");
        assertThat(registry.health().lastRenewalAt()).as("no renewal got through the pause").isNull();
        assertThat(registry.health().failedRenewals()).isZero();
    }
}
