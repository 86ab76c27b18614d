package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Registration;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisCluster;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Views follow their shard channels through Cluster topology changes while writers and views run: a manual
 * failover, a master killed and replaced by its replica, a slot migrated to another shard. The periodic reconcile
 * is off (hours), so only the resubscribe-and-resync path can make them converge, and they must within a second.
 * And a topology that does not change leaves views alone: refreshing it makes nothing stale and resyncs nothing.
 */
class ClusterFailoverIT extends NamespaceTest {
    /** The goal: every view has every write made after the topology change within this bound. */
    private static final Duration GOAL = Duration.ofSeconds(1);
    /** Writes right after a change may meet a client whose topology is still old: they are retried this long. */
    private static final Duration WRITE_RETRY = Duration.ofSeconds(20);
    private static final int SERVICES = 3;
    /** A command timeout longer than a kill -9 failover (2-4 s here), so a write can wait through one. */
    private static final Duration LONG_TIMEOUT = Duration.ofSeconds(15);

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = TestRedis.startClusterWithReplicas();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    String redisUri() {
        return cluster.uri();
    }

    @Test
    void viewsConvergeWithinASecondOfAManualFailover() {
        converge((shard, services) -> cluster.failover(shard));
    }

    @Test
    void instancesWithAShortTtlSurviveAFailoverOfTheirShard() {
        // given instances whose TTL is shorter than their shard's failover, owned by a client that holds no
        // subscription on that shard (so no connection of any client that counts is lost: only its renewals fail)
        int shard = 0;
        String service = servicesIn(shard).get(0);
        LodestarClient owner = clients.connect(options -> reconcileOff(options).sweepInterval(Duration.ofMillis(500)));
        for (int i = 1; i <= 3; i++) {
            owner.registry().register(ServiceInstance.builder(service, service + "-" + i).host("h").port(i)
                    .ttl(Duration.ofSeconds(1)).build());
        }
        long revision = owner.directDiscovery().getSnapshot(service).revision();
        // the sweep tells a failover by the master it noted in the bucket's master key: a failover before any round
        // noted the old master there, and replicated it, cannot be told from a first round (see sweep_state.lua)
        String masterKey = keys().master(Keys.bucket(service));
        await("the bucket's master noted on both nodes of its shard").atMost(Duration.ofSeconds(10))
                .until(() -> nodesHolding(masterKey) == 2);
        RedisServer killed = null;
        try {
            // when the shard's master dies and a replica takes over (2-4 s: longer than the TTL)
            killed = cluster.killMasterAndAwaitPromotion(shard);
            Instant promoted = Instant.now();

            // then the owner renews them again, and over a window longer than TTL + two sweeps nothing expired
            // them: an expiry and the owner's re-registration would each have moved the service's revision
            await().atMost(WRITE_RETRY).until(() -> {
                Instant renewed = owner.health().registrations().lastRenewalAt();
                return renewed != null && renewed.isAfter(promoted);
            });
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
            assertThat(owner.directDiscovery().getSnapshot(service).revision()).isEqualTo(revision);
            assertThat(owner.directDiscovery().getInstances(service)).hasSize(3);
        } finally {
            if (killed != null) {
                killed.restart();
            }
        }
    }

    /** How many nodes, masters and replicas, hold the key (a replica read after READONLY; other shards answer MOVED). */
    private long nodesHolding(String key) {
        long holding = 0;
        for (RedisServer node : Stream.concat(cluster.masters().stream(), cluster.replicas().stream()).toList()) {
            RedisClient client = RedisClient.create(node.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().readOnly();
                holding += connection.sync().exists(key);
            } catch (RedisException notThisShardOrDown) {
                // MOVED from another shard's node, or a node that is down
            } finally {
                client.shutdown();
            }
        }
        return holding;
    }

    @Test
    void aClientStartedWhileAMasterIsDownWritesItsSlotsWithinTwoSecondsOfThePromotion() {
        int shard = 2;
        String service = servicesIn(shard).get(0);
        AtomicReference<LodestarClient> started = new AtomicReference<>();
        RedisServer killed = null;
        try {
            // given a client that learned the topology while the shard's master was down
            killed = cluster.killMasterAndAwaitPromotion(shard,
                    () -> started.set(clients.connect(ClusterFailoverIT::reconcileOff)));
            long promoted = System.nanoTime();

            // when it writes to that shard, then the writes succeed within two seconds of the promotion
            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                    .ignoreExceptionsInstanceOf(LodestarException.class)
                    .until(() -> started.get().registry().register(instance(service, service + "-1")) != null);
            System.out.printf("first write %d ms after the promotion%n",
                    Duration.ofNanos(System.nanoTime() - promoted).toMillis());
        } finally {
            if (killed != null) {
                killed.restart();
            }
        }
    }

    @Test
    void aWriteWaitingForAKilledMasterGoesToItsReplicaOnceItIsPromotedInsteadOfTimingOut() {
        // given a writer whose connection to the shard's master is open, and a command timeout longer than a failover
        int shard = 0;
        String service = servicesIn(shard).get(0);
        LodestarClient writer = clients.connect(options -> reconcileOff(options).commandTimeout(LONG_TIMEOUT));
        writer.registry().register(instance(service, service + "-1"));
        AtomicReference<CompletableFuture<Registration>> write = new AtomicReference<>();
        RedisServer killed = null;
        try {
            // when the master dies and a write to its slots is made before its replica is promoted
            killed = cluster.killMasterAndAwaitPromotion(shard, () -> write.set(CompletableFuture.supplyAsync(
                    () -> writer.registry().register(instance(service, service + "-2")))));
            long promoted = System.nanoTime();

            // then the write, never sent to the dead master, is sent to the new one: it succeeds, no timeout
            await().atMost(LONG_TIMEOUT.minusSeconds(5)).until(() -> write.get().isDone());
            System.out.printf("write waiting for the killed master done %d ms after the promotion%n",
                    Duration.ofNanos(System.nanoTime() - promoted).toMillis());
            assertThat(write.get()).succeedsWithin(Duration.ZERO);
            assertThat(writer.directDiscovery().getInstances(service)).extracting(ServiceInstance::instanceId)
                    .contains(service + "-2");
        } finally {
            if (killed != null) {
                killed.restart();
            }
        }
    }

    @Test
    void viewsConvergeWithinASecondOfAMasterKilledAndReplacedByItsReplica() {
        List<RedisServer> killed = new ArrayList<>();
        try {
            converge((shard, services) -> killed.add(cluster.killMasterAndAwaitPromotion(shard)));
        } finally {
            killed.forEach(RedisServer::restart); // it rejoins as a replica: the next test has a full cluster
        }
    }

    /**
     * The subscription path alone (no reconcile, no write to wake the view): after each of several kill -9 failovers
     * of the shard, the view that follows its services is fresh again, and holds a write made before the kill, within
     * the goal of the promotion being visible; and a write made after it within the goal. The times are printed, so a
     * run shows the spread (issue 26: once 1,352 ms of 7).
     */
    @Test
    void viewsResubscribeWithinASecondOfEachOfSeveralMasterKills() {
        int shard = 2;
        List<String> services = servicesIn(shard);
        LodestarClient writer = clients.connect(ClusterFailoverIT::reconcileOff);
        LodestarClient view = clients.connect(ClusterFailoverIT::reconcileOff);
        for (String service : services) {
            writer.registry().register(instance(service, service + "-before"));
            assertThat(view.discovery().getInstances(service)).hasSize(1);
        }
        List<String> measured = new ArrayList<>();
        List<Long> freshAfter = new ArrayList<>();
        List<Long> visibleAfter = new ArrayList<>();
        for (int failover = 1; failover <= 3; failover++) {
            String after = "after-" + failover;
            RedisServer killed = cluster.killMasterAndAwaitPromotion(shard);
            try {
                // the promotion is visible (every node agrees); waits are long here, the goal is asserted below on
                // what was measured, so a miss shows every failover's figures
                long promoted = System.nanoTime();
                await().atMost(WRITE_RETRY).pollInterval(Duration.ofMillis(5))
                        .until(() -> !view.discovery().status().stale());
                freshAfter.add(millis(System.nanoTime() - promoted));
                for (String service : services) {
                    await().atMost(WRITE_RETRY).ignoreExceptionsInstanceOf(LodestarException.class).untilAsserted(
                            () -> writer.registry().register(instance(service, service + "-" + after)));
                }
                long written = System.nanoTime();
                await().atMost(WRITE_RETRY).pollInterval(Duration.ofMillis(5)).untilAsserted(() -> {
                    for (String service : services) {
                        assertThat(view.discovery().getInstances(service)).extracting(ServiceInstance::instanceId)
                                .contains(service + "-before", service + "-" + after);
                    }
                });
                visibleAfter.add(millis(System.nanoTime() - written));
                measured.add(String.format("kill %d: view fresh %d ms after the promotion, writes visible %d ms after"
                        + " they succeeded (%d ms after the promotion)", failover, freshAfter.get(failover - 1),
                        visibleAfter.get(failover - 1), millis(System.nanoTime() - promoted)));
            } finally {
                killed.restart(); // it rejoins as a replica: the next kill promotes it back
            }
        }
        measured.forEach(line -> System.out.println("ClusterFailoverIT: " + line));
        assertThat(freshAfter).as("ms from each promotion to a fresh view: %s", measured)
                .allMatch(ms -> ms <= GOAL.toMillis());
        assertThat(visibleAfter).as("ms from each write to the view: %s", measured)
                .allMatch(ms -> ms <= GOAL.toMillis());
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Test
    void aViewIsStaleExactlyWhileANodeCarryingItsSubscriptionsIsUnreachable() {
        // given: one view follows services of the shard whose master dies, another only services of other shards
        int shard = 1;
        LodestarClient writer = clients.connect(ClusterFailoverIT::reconcileOff);
        LodestarClient affected = clients.connect(ClusterFailoverIT::reconcileOff);
        LodestarClient unaffected = clients.connect(ClusterFailoverIT::reconcileOff);
        for (String service : servicesIn(shard)) {
            writer.registry().register(instance(service, service + "-1"));
            assertThat(affected.discovery().getInstances(service)).hasSize(1);
        }
        for (String service : servicesIn((shard + 1) % 3)) {
            writer.registry().register(instance(service, service + "-1"));
            assertThat(unaffected.discovery().getInstances(service)).hasSize(1);
        }
        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicBoolean affectedWasStale = new AtomicBoolean();
        AtomicBoolean unaffectedWasStale = new AtomicBoolean();
        AtomicBoolean affectedSawItsNodeDown = new AtomicBoolean();
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                affectedWasStale.compareAndSet(false, affected.discovery().status().stale());
                affectedSawItsNodeDown.compareAndSet(false,
                        affected.health().nodes().stream().anyMatch(node -> !node.connected()));
                unaffectedWasStale.compareAndSet(false, unaffected.discovery().status().stale());
                LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
            }
        }, "ClusterFailoverIT-sampler");
        sampler.start();
        RedisServer killed = null;
        try {
            // when
            killed = cluster.killMasterAndAwaitPromotion(shard);

            // then: stale while its subscriptions had no node, fresh again within the goal once they have one
            await().atMost(GOAL).until(() -> !affected.discovery().status().stale());
            // and its health named the lost node, and is healthy again once the dead node left the topology
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(affected.health().healthy())
                    .as("health %s", affected.health()).isTrue());
        } finally {
            sampling.set(false);
            join(sampler);
            if (killed != null) {
                killed.restart();
            }
        }
        assertThat(affectedWasStale).as("the view whose subscriptions were on the killed master was stale").isTrue();
        assertThat(affectedSawItsNodeDown).as("health() showed the killed master's node down").isTrue();
        assertThat(unaffectedWasStale).as("the view with no subscription there was stale").isFalse();
    }

    @Test
    void configViewsFollowAManualFailoverWithinASecond() {
        // given: a config entry in the shard that fails over, held by a view of another client
        int shard = 1;
        String configId = null;
        for (int i = 0; configId == null; i++) {
            String candidate = "cfg" + i;
            if (cluster.shardOf(SlotHash.getSlot(keys().config(candidate).channel())) == shard) {
                configId = candidate;
            }
        }
        String id = configId;
        LodestarClient writer = clients.connect(ClusterFailoverIT::reconcileOff);
        LodestarClient view = clients.connect(ClusterFailoverIT::reconcileOff);
        writer.config().set(id, "a=1", ConfigFormat.PROPERTIES);
        assertThat(view.config().get(id)).map(ConfigEntry::content).contains("a=1");

        // when
        cluster.failover(shard);
        await().atMost(WRITE_RETRY).ignoreExceptionsInstanceOf(LodestarException.class)
                .untilAsserted(() -> writer.config().set(id, "a=2", ConfigFormat.PROPERTIES));

        // then
        await().atMost(GOAL).untilAsserted(() ->
                assertThat(view.config().get(id)).map(ConfigEntry::content).contains("a=2"));
    }

    @Test
    void viewsConvergeWithinASecondOfASlotMigration() {
        converge((shard, services) -> {
            for (String service : services) {
                cluster.migrateSlot(SlotHash.getSlot(channel(service)), (shard + 1) % 3);
            }
        });
    }

    @Test
    void topologyRefreshesOfAnIdleClusterMakeNoViewStaleAndResyncNothing() {
        // given: a view holding services on every shard, and nothing written
        LodestarClient writer = clients.connect(ClusterFailoverIT::reconcileOff);
        RedisLodestarClient view = (RedisLodestarClient) clients.connect(ClusterFailoverIT::reconcileOff);
        List<String> services = new ArrayList<>();
        for (int shard = 0; shard < 3; shard++) {
            services.addAll(servicesIn(shard));
        }
        for (String service : services) {
            writer.registry().register(instance(service, service + "-1"));
            assertThat(view.discovery().getInstances(service)).hasSize(1);
        }
        long resyncsBefore = view.serviceView.resyncs.sum() + view.indexView.resyncs.sum();
        AtomicBoolean everStale = new AtomicBoolean();

        // when: topology refreshes open and close their probe connections (as Lettuce's do on redirects and changes)
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(5))
                .until(() -> {
                    if (ThreadLocalRandom.current().nextInt(20) == 0) {
                        view.backend.refreshTopology().toCompletableFuture().orTimeout(2, TimeUnit.SECONDS).join();
                    }
                    everStale.compareAndSet(false, view.discovery().status().stale());
                    return !everStale.get();
                });

        // then
        assertThat(view.serviceView.resyncs.sum() + view.indexView.resyncs.sum()).isEqualTo(resyncsBefore);
    }

    /**
     * Given writers and views on services of one shard, when {@code change} happens to that shard, then a write
     * made after it reaches every view within the goal, and once writers stop every view equals Redis.
     */
    private void converge(BiConsumer<Integer, List<String>> change) {
        // given
        int shard = 1;
        List<String> services = servicesIn(shard);
        LodestarClient writer = clients.connect(ClusterFailoverIT::reconcileOff);
        List<LodestarClient> views = List.of(clients.connect(ClusterFailoverIT::reconcileOff),
                clients.connect(ClusterFailoverIT::reconcileOff));
        for (String service : services) {
            writer.registry().register(instance(service, service + "-first"));
            views.forEach(view -> assertThat(view.discovery().getInstances(service)).hasSize(1));
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger writes = new AtomicInteger();
        Thread writes1 = new Thread(() -> {
            int n = 0;
            while (writing.get()) {
                String service = services.get(n % services.size());
                try {
                    // ids cycle through a small set: registrations, updates and deregistrations, in small views
                    if (n % 3 == 2) {
                        writer.registry().deregister(service, service + "-" + (n - 1) % 60);
                    } else {
                        writer.registry().register(instance(service, service + "-" + n % 60));
                    }
                    writes.incrementAndGet();
                } catch (LodestarException duringTheChange) {
                    // the change makes some writes fail; the views must still end up equal to Redis
                }
                n++;
            }
        }, "ClusterFailoverIT-writer");
        writes1.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> writes.get() >= 20);

            // when
            change.accept(shard, services);

            // then: a write made now reaches every view within the goal
            for (String service : services) {
                await().atMost(WRITE_RETRY).ignoreExceptionsInstanceOf(LodestarException.class).untilAsserted(
                        () -> writer.registry().register(instance(service, service + "-after")));
            }
            await().atMost(GOAL).untilAsserted(() -> {
                for (LodestarClient view : views) {
                    for (String service : services) {
                        assertThat(view.discovery().getInstances(service)).extracting(ServiceInstance::instanceId)
                                .as("%s in a view", service).contains(service + "-after");
                    }
                }
            });
        } finally {
            writing.set(false);
            join(writes1);
        }

        // then: nothing lost, no ghosts
        await().atMost(GOAL).untilAsserted(() -> {
            for (String service : services) {
                List<ServiceInstance> truth = writer.directDiscovery().getInstances(service);
                for (LodestarClient view : views) {
                    assertThat(view.discovery().getInstances(service)).as("%s in a view", service)
                            .isEqualTo(truth);
                }
            }
        });
        views.forEach(view -> assertThat(view.discovery().status().stale()).isFalse());
    }

    /** {@value #SERVICES} service ids of this test's namespace whose channels live in the shard. */
    private List<String> servicesIn(int shard) {
        List<String> services = new ArrayList<>();
        for (int i = 0; services.size() < SERVICES; i++) {
            String service = "svc" + i;
            if (cluster.shardOf(SlotHash.getSlot(channel(service))) == shard) {
                services.add(service);
            }
        }
        return services;
    }

    private String channel(String service) {
        return keys().service(service).channel();
    }

    private static LodestarOptions.Builder reconcileOff(LodestarOptions.Builder o) {
        return o.reconcileInterval(Duration.ofHours(1));
    }

    private static void join(Thread thread) {
        try {
            thread.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertThat(thread.isAlive()).as(thread.getName() + " finished").isFalse();
    }
}
