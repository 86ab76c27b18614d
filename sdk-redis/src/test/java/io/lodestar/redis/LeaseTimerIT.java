package io.lodestar.redis;

import io.lettuce.core.resource.ClientResources;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.test.TestRedis;
import io.netty.util.HashedWheelTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lease's pending renewal waits on the timer of the client's Lettuce resources and runs on the client's
 * scheduler: with resources and a scheduler lent by the application, renewals reach Redis, and closing the client
 * takes every pending renewal off the lent timer, which stays the application's. When renewals are due, late or
 * retried is tested on a manual clock (LeasesTest); the wheel's hand-over to the scheduler in WheelClockTest.
 */
class LeaseTimerIT extends NamespaceTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    private ClientResources resources;
    private ScheduledExecutorService scheduler;

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @BeforeEach
    void lend() {
        resources = ClientResources.create();
        scheduler = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void takeBack() throws Exception {
        scheduler.shutdownNow();
        resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
    }

    @Test
    void renewalsKeepAnInstanceAliveOnLentResourcesAndScheduler() {
        // given a client on lent resources and a lent scheduler, and an instance with the shortest TTL (1 s)
        LodestarClient owner = lentClient();
        owner.registry().register(instance("orders", "orders-1").toBuilder().ttl(Duration.ofSeconds(1)).build());

        // when a renewal has come and gone (when renewals are due is LeasesTest's, on a manual clock)
        await().atMost(BOUND).until(() -> owner.health().registrations().lastRenewalAt() != null);

        // then it renewed the instance in Redis, on time
        assertThat(owner.registry().timeToLive("orders").get("orders-1")).isGreaterThan(Duration.ZERO);
        var registrations = owner.health().registrations();
        assertThat(registrations.lateRenewals()).isZero();
        assertThat(registrations.failedRenewals()).isZero();
    }

    @Test
    void closingTheClientTakesItsRenewalsOffTheLentTimer() {
        // given 50 leases of a client on lent resources, each renewal pending on the resources' timer
        HashedWheelTimer timer = (HashedWheelTimer) resources.timer();
        LodestarClient owner = lentClient();
        for (int i = 0; i < 50; i++) {
            owner.registry().register(instance("orders", "orders-" + i).toBuilder().ttl(Duration.ofMinutes(10))
                    .build());
        }
        // (the timer also holds each command's timeout while it runs: once the client is idle, only the leases stay)
        await().atMost(BOUND).until(() -> timer.pendingTimeouts() == 50);

        // when the client closes
        owner.close();

        // then none of its renewals is left on the timer (a cancelled one leaves at the timer's next tick),
        // and the timer, the application's, still runs
        await().atMost(BOUND).until(() -> timer.pendingTimeouts() == 0);
        assertThat(timer.newTimeout(timeout -> { }, 1, TimeUnit.MINUTES).isCancelled()).isFalse();
    }

    private LodestarClient lentClient() {
        LodestarOptions options = LodestarOptions.builder(redisUri()).namespace(clients.namespace())
                .commandTimeout(Duration.ofSeconds(2)).deregisterOnClose(false).build();
        return RedisLodestar.builder(options).clientResources(resources).scheduler(scheduler).build();
    }
}
