package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Discovery when Redis loses its data (a restart without persistence, here the test kit's restart, which starts an
 * empty server): views keep serving the instances Redis lost until their owners registered them again, an instance
 * whose owner died still leaves within its bound, and an app started while Redis is down serves its snapshots.
 * Each test has a Redis of its own; the two that wait out the outage grace (10 s) run beside the others.
 */
class DataLossIT extends PrivateRedisTest {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration CONVERGENCE = Duration.ofSeconds(10);
    private static final Set<String> LIVE = Set.of("orders-1", "orders-2", "orders-3");

    @Test
    void restartsThatLoseEveryKeyNeverShowAViewOrListenerALiveInstanceLeaving() throws InterruptedException {
        // given three live instances and a client that watches them
        LodestarClient owner = clients.connect();
        LIVE.forEach(id -> owner.registry().register(instance(id)));
        LodestarClient caller = clients.connect();
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        caller.discovery().subscribe("orders", heard::add);
        assertThat(ids(caller.discovery().getInstances("orders"))).isEqualTo(LIVE);
        AtomicInteger fewest = new AtomicInteger(LIVE.size());
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> { // a reader reading all the time, as a busy caller does
            while (watching.get()) {
                fewest.accumulateAndGet(caller.discovery().getInstances("orders").size(), Math::min);
                LockSupport.parkNanos(100_000); // every 0.1 ms: an empty list would last far longer
            }
        }, "sampler");
        sampler.setDaemon(true);
        sampler.start();

        try {
            // when Redis restarts empty ten times, each once the owner registered everything again
            for (int restart = 1; restart <= 10; restart++) {
                redis.restart();
                // a direct read may meet the command connection still reconnecting: only the outcome counts
                await().atMost(CONVERGENCE).ignoreException(UnavailableException.class).untilAsserted(() -> {
                    assertThat(ids(caller.directDiscovery().getInstances("orders"))).as("in Redis").isEqualTo(LIVE);
                    assertThat(caller.discovery().status().stale()).isFalse();
                });
            }
        } finally {
            watching.set(false);
        }

        // then no reader ever saw fewer instances, and no listener heard one leave
        sampler.join(5_000);
        assertThat(fewest).hasValue(LIVE.size());
        assertThat(heard).noneMatch(event -> event instanceof InstanceExpired || event instanceof InstanceDeregistered
                || event instanceof ServiceResynced resynced
                        && !ids(resynced.snapshot().instances()).containsAll(LIVE));
        assertThat(ids(caller.discovery().getInstances("orders"))).isEqualTo(LIVE);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = Resources.SYSTEM_ERR, mode = ResourceAccessMode.READ)
    void anInstanceWhoseOwnerDiedDuringTheOutageLeavesWithinTheGraceAndItsTtl() {
        // given two owners and a client that watches their instances
        LodestarClient survivor = clients.connect();
        survivor.registry().register(instance("orders-1"));
        LodestarClient doomed = clients.connect(options -> options.deregisterOnClose(false));
        doomed.registry().register(instance("orders-2"));
        LodestarClient caller = clients.connect();
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        caller.discovery().subscribe("orders", heard::add);
        assertThat(caller.discovery().getInstances("orders")).hasSize(2);

        // when Redis goes away, one owner dies meanwhile, and Redis comes back without its data
        redis.kill();
        doomed.close();
        redis.restart();
        long answering = System.nanoTime();

        // then the dead owner's instance leaves, one event, within the grace + its TTL (+ slack for a loaded machine)
        await().atMost(Sweeper.RECONNECT_ALLOWANCE.plus(TTL).plus(Duration.ofSeconds(3)))
                .until(() -> heard.stream().anyMatch(event -> event instanceof InstanceExpired expired
                        && expired.instanceId().equals("orders-2")));
        Duration left = Duration.ofNanos(System.nanoTime() - answering);
        System.out.printf("DataLossIT: the dead owner's instance left %d ms after Redis answered (bound: %d ms"
                + " + slack)%n", left.toMillis(), Sweeper.RECONNECT_ALLOWANCE.plus(TTL).toMillis());
        assertThat(left).as("not before its owner had the time to come back")
                .isGreaterThan(Sweeper.RECONNECT_ALLOWANCE);
        assertThat(ids(caller.discovery().getInstances("orders"))).containsExactly("orders-1");
        assertThat(heard).filteredOn(event -> event instanceof InstanceExpired || event instanceof InstanceDeregistered)
                .hasSize(1);
        assertThat(caller.discovery().status().stale()).isFalse();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = Resources.SYSTEM_ERR, mode = ResourceAccessMode.READ)
    void aServiceWhoseEveryOwnerDiedDuringTheOutageLeavesTheServiceListWhenItsInstancesDo() {
        // given a service whose only owner is about to die, and a client that lists services and reads its instances
        LodestarClient survivor = clients.connect();
        survivor.registry().register(instance("orders-1"));
        LodestarClient doomed = clients.connect(options -> options.deregisterOnClose(false));
        doomed.registry().register(ServiceInstance.builder("payments", "payments-1").host("10.0.0.9").port(9000)
                .ttl(TTL).build());
        LodestarClient caller = clients.connect();
        assertThat(caller.discovery().getInstances("payments")).hasSize(1);
        assertThat(caller.discovery().getServices()).containsExactlyInAnyOrder("orders", "payments");
        List<Set<String>> listed = new CopyOnWriteArrayList<>();
        caller.discovery().subscribeServices(change -> listed.add(change.services()));

        // when Redis goes away, the owner dies meanwhile, and Redis comes back without its data
        redis.kill();
        doomed.close();
        redis.restart();

        // then the service stays listed while its instance may come back, and leaves with it: a view that does not
        // stay wrong until the client restarts
        await().atMost(Sweeper.RECONNECT_ALLOWANCE.plus(TTL).plus(Duration.ofSeconds(3)))
                .until(() -> caller.discovery().getServices().equals(Set.of("orders")));
        assertThat(caller.discovery().getInstances("payments")).isEmpty();
        assertThat(listed).as("never listed without the live orders").allMatch(services -> services.contains("orders"));
        await().atMost(CONVERGENCE).until(() -> !caller.discovery().status().stale());
    }

    @Test
    void anAppStartedWhileRedisIsDownServesInstancesAndConfigsFromDiskAndConvergesWhenRedisAnswers(
            @TempDir Path snapshots) {
        // given an app that read orders and a config while Redis was up, and wrote them to disk
        LodestarClient owner = clients.connect();
        LIVE.forEach(id -> owner.registry().register(instance(id)));
        ConfigEntry config = owner.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient before = clients.connect(options -> options.serviceSnapshotDirectory(snapshots)
                .configSnapshotDirectory(snapshots));
        assertThat(before.discovery().getInstances("orders")).hasSize(3);
        assertThat(before.config().get("app")).contains(config);
        Snapshots<ServiceSnapshot> files = Snapshots.services(Optional.of(snapshots), clients.namespace(),
                LodestarOptions.builder(redis.uri()).build().redactedRedisUri(), Runnable::run);
        await().atMost(CONVERGENCE).until(() -> files.read("orders") != null);
        before.close();
        // and meanwhile orders-3 was deregistered; Redis then went down
        owner.registry().deregister("orders", "orders-3");
        RedisAdmin.run(redis, "SAVE");
        owner.close();
        redis.kill();

        // when the app starts again while Redis is down
        LodestarClient restarted = clients.connect(options -> options.serviceSnapshotDirectory(snapshots)
                .configSnapshotDirectory(snapshots).startupMode(StartupMode.OFFLINE));

        // then it serves what it held, from disk, marked stale
        assertThat(ids(restarted.discovery().getInstances("orders"))).isEqualTo(LIVE);
        assertThat(restarted.config().get("app")).contains(config);
        assertThat(restarted.discovery().status().restoredFromDisk()).isTrue();
        assertThat(restarted.discovery().status().stale()).isTrue();
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        restarted.discovery().subscribe("orders", heard::add);

        // and within a second (1.5 s for a loaded machine) of Redis answering, it holds what Redis holds
        redis.restart(); // with what it saved: orders-1 and orders-2
        long answering = System.nanoTime();
        await().atMost(Duration.ofMillis(1_500)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> {
                    assertThat(ids(restarted.discovery().getInstances("orders")))
                            .containsExactlyInAnyOrder("orders-1", "orders-2");
                    assertThat(restarted.discovery().status().stale()).isFalse();
                });
        System.out.printf("DataLossIT: an app started offline converged %d ms after Redis answered%n",
                (System.nanoTime() - answering) / 1_000_000);
        // and its listener hears the difference once (delivered on the listener's own thread, after the swap)
        await().atMost(CONVERGENCE).until(() -> !heard.isEmpty());
        assertThat(heard).hasSize(1).first().isInstanceOf(ServiceResynced.class);
    }

    @Test
    void aConfigRedisLostKeepsItsLastContentAndItsSnapshotUntilWrittenOrRemovedAgain(@TempDir Path snapshots) {
        // given a reader that holds a config, with its snapshot on disk
        LodestarClient writer = clients.connect();
        ConfigEntry lastGood = writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options -> options
                .configSnapshotDirectory(snapshots));
        List<ConfigEvent> heard = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", heard::add);
        assertThat(reader.config().get("app")).contains(lastGood);
        Snapshots<Optional<ConfigEntry>> files = Snapshots.configs(Optional.of(snapshots), clients.namespace(),
                LodestarOptions.builder(redis.uri()).build().redactedRedisUri(), Runnable::run);
        await().atMost(CONVERGENCE).until(() -> files.read("app") != null);

        // when Redis restarts without its data
        redis.restart();

        // then the reader keeps the config and its file, and its listener hears nothing
        await().atMost(CONVERGENCE).until(() -> reader.views().get("config").dataLosses.sum() == 1);
        assertThat(reader.config().get("app")).contains(lastGood);
        assertThat(files.read("app")).extracting(SyncedView.Versioned::value).isEqualTo(Optional.of(lastGood));
        assertThat(heard).isEmpty();

        // and a write under the new keys replaces it, and a remove then removes it
        ConfigEntry rewritten = await().atMost(CONVERGENCE).ignoreExceptions()
                .until(() -> writer.config().set("app", "a=2", ConfigFormat.PROPERTIES), entry -> true);
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(reader.config().get("app")).contains(rewritten));
        writer.config().remove("app");
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(reader.config().get("app")).isEmpty();
            assertThat(files.read("app")).isNull();
        });
        assertThat(heard).containsExactly(new ConfigChanged("app", 1, rewritten), new ConfigRemoved("app", 2));
    }

    @Test
    @ResourceLock(Resources.SYSTEM_ERR)
    void anAppStartedWhileRedisIsDownNeverServesASnapshotOfAnotherRedisOrATruncatedOne(@TempDir Path snapshots)
            throws IOException {
        // given a snapshot of orders truncated by a crash of the disk, and one of payments read from another Redis
        String here = LodestarOptions.builder(redis.uri()).build().redactedRedisUri();
        Snapshots<ServiceSnapshot> ours = Snapshots.services(Optional.of(snapshots), clients.namespace(), here,
                Runnable::run);
        ours.save("orders", snapshot("orders"));
        Path orders = ours.file("orders");
        String whole = Files.readString(orders);
        Files.writeString(orders, whole.substring(0, whole.length() - 40));
        Snapshots.services(Optional.of(snapshots), clients.namespace(), "redis://staging:6379", Runnable::run)
                .save("payments", snapshot("payments"));
        redis.kill();

        try (LogCapture log = LogCapture.start()) {
            // when an app starts while Redis is down
            LodestarClient app = clients.connect(options -> options.serviceSnapshotDirectory(snapshots)
                    .startupMode(StartupMode.OFFLINE));

            // then it serves neither, and says why, once each
            assertThatThrownBy(() -> app.discovery().getInstances("orders"))
                    .isInstanceOf(UnavailableException.class);
            assertThatThrownBy(() -> app.discovery().getInstances("payments"))
                    .isInstanceOf(UnavailableException.class);
            assertThat(log.lines("WARN", "Ignoring unreadable service snapshot", "corrupt or truncated")).hasSize(1);
            assertThat(log.lines("WARN", "Ignoring service snapshot", "of 'payments'", "redis://staging:6379",
                    here)).hasSize(1);
        }
    }

    private static SyncedView.Versioned<ServiceSnapshot> snapshot(String service) {
        ServiceInstance one = Clients.instance(service, service + "-1");
        return new SyncedView.Versioned<>(1, new ServiceSnapshot(service, 1, List.of(one)), null, "keys-a");
    }

    private static ServiceInstance instance(String id) {
        return Clients.instance("orders", id).toBuilder().ttl(TTL).build();
    }

    private static Set<String> ids(List<ServiceInstance> instances) {
        return instances.stream().map(ServiceInstance::instanceId).collect(Collectors.toSet());
    }
}
