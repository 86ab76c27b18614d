package io.lodestar.redis;

import io.lettuce.core.KillArgs;
import io.lodestar.core.LodestarClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client whose connections drop while Redis stays reachable (a slow consumer cut off by
 * {@code client-output-buffer-limit}, a flaky network path) is no outage: it must not keep a crashed owner's
 * instance in Redis, however often it drops.
 */
class FlappingClientIT extends PrivateRedisTest {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration SWEEP = Duration.ofMillis(500);
    /** The reconnect allowance of the outage rule (Sweeper.RECONNECT_ALLOWANCE). */
    private static final Duration ALLOWANCE = Duration.ofSeconds(10);
    /** Shorter than the outage grace (allowance + TTL): before the fix, every drop postponed expiry again. */
    private static final Duration DROP_EVERY = Duration.ofSeconds(2);

    @Test
    void aClientWhosePubSubConnectionDropsEveryTwoSecondsDoesNotKeepACrashedOwnersInstance() {
        // given a healthy client with a lease of its own, which sweeps, and a crashed owner's instance
        LodestarClient flapping = clients.connect(options -> options.sweepInterval(SWEEP));
        flapping.registry().register(instance("orders", "orders-live").toBuilder().ttl(TTL).build());
        flapping.discovery().getInstances("orders"); // a subscription: its PubSub connection carries one
        LodestarClient crashing = clients.connect(options -> options.deregisterOnClose(false));
        crashing.registry().register(instance("orders", "orders-crashed").toBuilder().ttl(TTL).build());
        crashing.close(); // stops renewing without deregistering

        // when Redis drops the client's PubSub connection every two seconds, from now until the end
        ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor();
        try {
            killer.scheduleAtFixedRate(() -> redis().clientKill(KillArgs.Builder.typePubsub()), 0,
                    DROP_EVERY.toMillis(), TimeUnit.MILLISECONDS);

            // then the crashed owner's instance leaves Redis (read there: a direct read leaves out an overdue
            // instance anyway) within TTL + allowance + a sweep interval, and a second for a loaded machine; the
            // live one stays
            String instances = keys().service("orders").instances();
            await().atMost(TTL.plus(ALLOWANCE).plus(SWEEP).plusSeconds(1)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !redis().hexists(instances, "orders-crashed"));
            assertThat(instanceIdsInRedis("orders")).containsExactly("orders-live");
        } finally {
            killer.shutdownNow();
        }
    }
}
