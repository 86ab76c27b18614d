package io.lodestar.redis;

import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static io.lodestar.redis.Clients.instance;
import static io.lodestar.redis.Clients.persistent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sweep looks only at the services whose time has come in their bucket's due set (see {@link Sweeper} and
 * file_due in common.lua): quiet services cost it nothing, a dead instance still expires within its TTL and a sweep
 * interval, a write whose index report never came is reported by the sweep, and the rare full pass repairs what the
 * due sets lost. The clients of these tests sweep every 500 ms and never reconcile (see {@link Clients}). The tests
 * run at the same time (see junit-platform.properties): each sweeps, counts and corrupts only its own namespace.
 */
class SweepDueIT extends NamespaceTest {
    private static final Duration SETTLED = Duration.ofSeconds(20);

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void quietServicesCostTheSweepNothingBeyondOneCallPerBucket() {
        // given 200 services whose instance its owner renews (TTL 5 s, renewed every ~1.7 s) and 200 services with a
        // persistent instance, all written by clients that sweep too
        LodestarClient owner = clients.connect();
        RedisLodestarClient other = (RedisLodestarClient) clients.connect();
        IntStream.range(0, 200).forEach(i -> {
            owner.registry().register(instance("live-" + i, "i").toBuilder().ttl(Duration.ofSeconds(5)).build());
            owner.registry().register(persistent("fixed-" + i, "i"));
        });
        // each first registration made its service due at once, so that a sweep reports it to the index: settled
        await().atMost(SETTLED).until(() -> dueNow() == 0);
        assertThat(other.directDiscovery().getServices()).hasSize(400);
        long sweptBefore = servicesSwept(owner, other);
        long roundsBefore = rounds(owner, other);

        // when eight more rounds pass (about four seconds: two renewals of every live instance)
        await().atMost(SETTLED).until(() -> rounds(owner, other) >= roundsBefore + 8);

        // then no round swept a service: each read the bucket due sets and found nothing due
        assertThat(servicesSwept(owner, other)).isEqualTo(sweptBefore);
        assertThat(other.directDiscovery().getInstances("live-0")).hasSize(1);
        assertThat(other.directDiscovery().getServices()).hasSize(400);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void anAbandonedInstanceExpiresWithinItsTtlAndASweepInterval() {
        // given an instance with a TTL of 1 s among 50 quiet services, whose owner crashed
        LodestarClient neighbour = clients.connect();
        IntStream.range(0, 50).forEach(i -> neighbour.registry().register(instance("quiet-" + i, "i")));
        registerAndAbandon(instance("orders", "orders-1").toBuilder().ttl(Duration.ofSeconds(1)).build(),
                Duration.ofMillis(500));

        // then a sweeping client removes it once its deadline has passed, and the index forgets the service
        LodestarClient viewer = clients.connect();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(redis().hexists(keys().service("orders").instances(), "orders-1")).isFalse();
            assertThat(viewer.directDiscovery().getServices()).doesNotContain("orders").hasSize(50);
        });
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aWriteWhoseIndexReportNeverCameIsReportedByTheNextSweep() {
        // given a registration of a new service written by its script alone: its writer crashed before it reported
        // the service to the namespace index (a call of its own, in another slot)
        Keys.ServiceKeys orders = keys().service("orders");
        ServiceInstance instance = persistent("orders", "orders-1");
        redis().eval(Scripts.REGISTER_INSTANCE.body(), ScriptOutputType.MULTI, orders.all(), "orders-1",
                Json.instance(instance), "0", "register");
        assertThat(redis().hexists(keys().services().index(), "orders")).as("not indexed yet").isFalse();

        // when a client sweeps
        LodestarClient sweeper = clients.connect();

        // then the sweep found the service due and reported it: the index lists it
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(sweeper.directDiscovery().getServices()).containsExactly("orders"));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theFullPassExpiresWhatTheDueSetsLost() {
        // given an abandoned instance (TTL 1 s) whose bucket due set was deleted by hand before any sweep
        registerAndAbandon(instance("orders", "orders-1").toBuilder().ttl(Duration.ofSeconds(1)).build(),
                Duration.ofDays(1));
        Keys.ServiceKeys orders = keys().service("orders");
        redis().del(orders.due());
        RedisLodestarClient sweeper = (RedisLodestarClient) clients.connect();

        // when rounds only read the due sets, it stays past its deadline (nothing due tells them about it)
        await().atMost(SETTLED).until(() -> sweeper.sweeper().rounds.sum() >= 6);
        assertThat(redis().hexists(orders.instances(), "orders-1")).as("still stored after TTL + 2.5 s").isTrue();

        // and when the full pass comes due (every 10 minutes; here the marker is moved to the past)
        redis().set(keys().fullSweep(), "0");

        // then the full pass sweeps every service of the index and expires it
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(redis().hexists(orders.instances(), "orders-1")).isFalse());
    }

    /** Due entries whose time has come, over every bucket, by Redis time. */
    private long dueNow() {
        List<String> time = redis().time();
        long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        return IntStream.range(0, Keys.BUCKETS)
                .mapToLong(bucket -> redis().zcount(keys().due(bucket), Range.create(0, now)))
                .sum();
    }

    private static long servicesSwept(LodestarClient... sweepers) {
        return List.of(sweepers).stream()
                .mapToLong(client -> ((RedisLodestarClient) client).sweeper().servicesSwept.sum()).sum();
    }

    private static long rounds(LodestarClient... sweepers) {
        return List.of(sweepers).stream()
                .mapToLong(client -> ((RedisLodestarClient) client).sweeper().rounds.sum()).sum();
    }

    /** Registers an instance that nobody renews: its owner, sweeping at {@code sweepInterval}, is closed at once. */
    private void registerAndAbandon(ServiceInstance instance, Duration sweepInterval) {
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false)
                .sweepInterval(sweepInterval));
        owner.registry().register(instance);
        owner.close();
    }
}
