package io.lodestar.redis;

import io.lettuce.core.resource.ClientResources;
import io.lodestar.core.ClientHealth;
import io.lodestar.core.ConnectionStateListener;
import io.lodestar.core.Initial;
import io.lodestar.core.InstanceFilter;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Registration;
import io.lodestar.core.StartupMode;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The API an application server or framework embeds: shared resources, non-blocking first reads, healthy-only
 * reads, subscriptions with the current state, health and a phased shutdown; on a private Redis it may kill.
 */
class ClientApiIT extends PrivateRedisTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    @Test
    void preloadedServicesAreHeldBeforeTheFirstRead() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));

        RedisLodestarClient client = (RedisLodestarClient) clients.connect(options ->
                options.preloadServices(List.of("orders", "billing")));

        assertThat(client.serviceView.api().held()).containsExactlyInAnyOrder("orders", "billing");
        assertThat(client.serviceView.api().getIfHeld("orders").instances()).hasSize(1);
    }

    @Test
    void heldSnapshotsShowWhatTheViewHoldsWithoutLoadingOrCountingAsARead() {
        LodestarClient writer = clients.connect();
        long revision = writer.registry().register(instance("orders", "orders-1")).revision();
        RedisLodestarClient client = (RedisLodestarClient) clients.connect();
        RedisLodestar.bindMetrics(client, new SimpleMeterRegistry()); // reads are counted once metrics are bound
        assertThat(client.discovery().heldSnapshots()).as("nothing read yet").isEmpty();

        client.discovery().getInstances("orders");
        long reads = client.serviceView.reads.sum();

        assertThat(client.discovery().heldSnapshots()).containsOnlyKeys("orders")
                .hasEntrySatisfying("orders", snapshot -> {
                    assertThat(snapshot.revision()).isEqualTo(revision);
                    assertThat(snapshot.instances()).hasSize(1);
                });
        assertThat(client.serviceView.reads.sum()).as("not a read").isEqualTo(reads);
        assertThat(client.directDiscovery().heldSnapshots()).as("a direct reader holds nothing").isEmpty();
    }

    @Test
    void preloadCompletesOnceEveryServiceIsHeld() {
        RedisLodestarClient client = (RedisLodestarClient) clients.connect();

        client.discovery().preload(List.of("orders", "billing")).toCompletableFuture().join();

        assertThat(client.serviceView.api().held()).containsExactlyInAnyOrder("orders", "billing");
        assertThat(client.discovery().preload(List.of("ok", "not ok")).toCompletableFuture()).failsWithin(BOUND)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidArgumentException.class).withMessageContaining("serviceIds[1]");
    }

    @Test
    void anAsyncFirstReadCompletesOnALodestarThreadNeverOnAnEventLoop() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        LodestarClient reader = clients.connect();

        CompletableFuture<String> thread = reader.discovery().async().getInstances("orders").toCompletableFuture()
                .thenApply(instances -> instances.size() + " on " + Thread.currentThread().getName());
        CompletableFuture<String> configThread = reader.config().async().set("app", "a", ConfigFormat.TEXT)
                .toCompletableFuture().thenApply(entry -> Thread.currentThread().getName());

        // a Lodestar thread, or the caller's when the load was done before the stage was handed out
        assertThat(thread.join()).startsWith("1 on ").doesNotContain("lettuce-").doesNotContain("EventLoop");
        assertThat(configThread.join()).doesNotContain("lettuce-").doesNotContain("EventLoop");
        // once held, the answer is there at once
        assertThat(reader.discovery().async().getInstances("orders").toCompletableFuture()).isCompleted();
    }

    @Test
    void anAsyncConfigReadCompletesOffTheEventLoopAndAtOnceWhenHeld() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "v1", ConfigFormat.TEXT);
        LodestarClient reader = clients.connect();

        CompletableFuture<String> first = reader.config().async().get("app").toCompletableFuture()
                .thenApply(entry -> entry.orElseThrow().content() + " on " + Thread.currentThread().getName());

        assertThat(first.join()).startsWith("v1 on ").doesNotContain("lettuce-").doesNotContain("EventLoop");
        assertThat(reader.config().async().get("app").toCompletableFuture()).isCompleted();
        assertThat(reader.config().async().get("absent").toCompletableFuture().join()).isEmpty();
        assertThat(reader.config().async().get("not ok").toCompletableFuture()).failsWithin(BOUND)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void asyncReadsFailTheStageWithLodestarExceptions() {
        LodestarClient reader = clients.connect();

        CompletableFuture<?> badInput = reader.discovery().async().getInstances("not ok").toCompletableFuture();
        assertThat(badInput).failsWithin(BOUND).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidArgumentException.class);

        redis.kill();
        CompletableFuture<?> down = reader.discovery().async().getSnapshot("orders").toCompletableFuture();
        assertThat(down).failsWithin(BOUND).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(UnavailableException.class);
    }

    @Test
    void healthyOnlyReadsReturnTheSameListUntilTheServiceChanges() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        writer.registry().register(instance("orders", "orders-2"));
        LodestarClient reader = clients.connect();
        assertThat(reader.discovery().getInstances("orders", InstanceFilter.UP))
                .as("every instance up: the snapshot's own list")
                .isSameAs(reader.discovery().getInstances("orders"));

        writer.registry().setStatus("orders", "orders-2", InstanceStatus.OUT_OF_SERVICE);
        await().atMost(BOUND).untilAsserted(() ->
                assertThat(reader.discovery().getInstances("orders", InstanceFilter.UP)).hasSize(1));

        List<ServiceInstance> up = reader.discovery().getInstances("orders", InstanceFilter.UP);
        assertThat(up).extracting(ServiceInstance::instanceId).containsExactly("orders-1");
        assertThat(reader.discovery().getInstances("orders", InstanceFilter.UP)).isSameAs(up);
        assertThat(reader.discovery().getInstances("orders", InstanceFilter.ALL)).hasSize(2);

        writer.registry().register(instance("orders", "orders-3"));
        await().atMost(BOUND).untilAsserted(() ->
                assertThat(reader.discovery().getInstances("orders", InstanceFilter.UP)).hasSize(2).isNotSameAs(up));
    }

    @Test
    void aServiceSubscriptionWithInitialStateGetsItFirstThenEveryChangeOnce() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        writer.registry().register(instance("orders", "orders-2"));
        LodestarClient reader = clients.connect();
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();

        reader.discovery().subscribe("orders", events::add, Initial.DELIVER);
        writer.registry().register(instance("orders", "orders-3"));

        await().atMost(BOUND).untilAsserted(() -> assertThat(events).hasSize(2));
        ServiceResynced initial = (ServiceResynced) events.get(0);
        assertThat(initial.snapshot().instances()).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1", "orders-2");
        assertThat(events.get(1)).isInstanceOf(InstanceRegistered.class);
        assertThat(events.get(1).revision()).isEqualTo(initial.revision() + 1);
    }

    @Test
    void aConfigSubscriptionWithInitialValueGetsItThenEveryLaterVersionExactlyOnceInOrder() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "v1", ConfigFormat.TEXT);
        LodestarClient reader = clients.connect();
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();

        reader.config().subscribe("app", events::add, Initial.DELIVER);
        writer.config().set("app", "v2", ConfigFormat.TEXT);
        ConfigEntry v3 = writer.config().set("app", "v3", ConfigFormat.TEXT);

        await().atMost(BOUND).untilAsserted(() -> assertThat(events).hasSize(3));
        assertThat(events).extracting(ConfigEvent::version).containsExactly(1L, 2L, 3L);
        assertThat(events).allMatch(ConfigChanged.class::isInstance);
        assertThat(((ConfigChanged) events.get(0)).entry().content()).isEqualTo("v1");
        assertThat(events.get(2)).isEqualTo(new ConfigChanged("app", 3, v3));
    }

    @Test
    void aListenerRunsOnTheExecutorItChose() throws InterruptedException {
        ExecutorService mine = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "app-listener"));
        try {
            LodestarClient writer = clients.connect();
            LodestarClient reader = clients.connect();
            List<String> threads = new CopyOnWriteArrayList<>();

            reader.config().subscribe("app", event -> threads.add(Thread.currentThread().getName()), Initial.SKIP,
                    mine);
            writer.config().set("app", "v1", ConfigFormat.TEXT);

            await().atMost(BOUND).untilAsserted(() -> assertThat(threads).containsExactly("app-listener"));
        } finally {
            mine.shutdownNow();
            assertThat(mine.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void healthFollowsTheConnectionAndTheConnectionListenerHearsIt() {
        LodestarClient client = clients.connect(options -> options.reconcileInterval(Duration.ofHours(1)));
        client.discovery().getInstances("orders");
        List<String> heard = new CopyOnWriteArrayList<>();
        client.addConnectionStateListener(new ConnectionStateListener() {
            @Override
            public void connected(String node) {
                heard.add("connected " + node);
            }

            @Override
            public void disconnected(String node) {
                heard.add("disconnected " + node);
            }
        });
        ClientHealth up = client.health();
        assertThat(up.healthy()).isTrue();
        assertThat(up.nodes()).extracting(ClientHealth.Node::address).containsOnly("127.0.0.1:" + redis.port());

        redis.kill();
        await().atMost(BOUND).untilAsserted(() -> {
            ClientHealth down = client.health();
            assertThat(down.healthy()).isFalse();
            assertThat(down.nodes()).noneMatch(ClientHealth.Node::connected);
            assertThat(down.discovery().stale()).isTrue();
        });

        redis.restart();
        await().atMost(BOUND).untilAsserted(() -> assertThat(client.health().healthy()).isTrue());
        assertThat(heard).contains("disconnected 127.0.0.1:" + redis.port(), "connected 127.0.0.1:" + redis.port());
    }

    @Test
    void drainTakesInstancesOutOfServiceThenDeregisterAllRemovesThem() {
        LodestarClient owner = clients.connect();
        LodestarClient consumer = clients.connect();
        owner.registry().register(instance("orders", "orders-1"));
        owner.registry().register(instance("billing", "billing-1"));
        consumer.discovery().getInstances("orders");

        assertThat(owner.drain()).isEqualTo(2);
        await().atMost(BOUND).untilAsserted(() -> {
            assertThat(consumer.discovery().getInstances("orders", InstanceFilter.UP)).isEmpty();
            assertThat(consumer.discovery().getInstances("orders")).hasSize(1);
        });
        assertThat(owner.health().registrations().held()).isEqualTo(2);

        assertThat(owner.deregisterAll()).isEqualTo(2);
        await().atMost(BOUND).untilAsserted(() ->
                assertThat(consumer.discovery().getInstances("orders")).isEmpty());
        assertThat(owner.health().registrations().held()).isZero();
        owner.close();
    }

    @Test
    void registerWhenAvailableWaitsForRedisAndThenRegisters() {
        // given a client that started while Redis was down
        redis.kill();
        LodestarClient offline = RedisLodestar.create(options(b -> b.startupMode(StartupMode.OFFLINE)));
        try {
            CompletableFuture<Registration> registered = offline.registry().async()
                    .registerWhenAvailable(instance("orders", "orders-1")).toCompletableFuture();
            assertThatThrownBy(() -> offline.registry().register(instance("orders", "orders-2")))
                    .isInstanceOf(UnavailableException.class);
            assertThat(registered).as("still waiting for Redis").isNotDone();

            // when Redis comes back, then the registration goes through by itself
            redis.restart();
            assertThat(registered).succeedsWithin(BOUND).satisfies(registration ->
                    assertThat(registration.instance().instanceId()).isEqualTo("orders-1"));
            assertThat(offline.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactly("orders-1");
        } finally {
            offline.close();
        }
    }

    @Test
    void registerWhenAvailableFailsAtOnceForWhatWaitingCannotFix() {
        LodestarClient client = clients.connect();
        ServiceInstance unknownStatus = instance("orders", "orders-1").toBuilder().status(InstanceStatus.UNKNOWN)
                .build();

        assertThat(client.registry().async().registerWhenAvailable(unknownStatus).toCompletableFuture())
                .failsWithin(BOUND).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void closingARegistrationNeverThrowsEvenWithRedisDown() {
        LodestarClient owner = clients.connect();
        Registration registration = owner.registry().register(instance("orders", "orders-1"));
        redis.kill();

        registration.close(); // logged; the instance expires by its TTL
    }

    @Test
    void renewalsAreCountedInHealth() {
        LodestarClient owner = clients.connect();
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build());

        await().atMost(BOUND).untilAsserted(() ->
                assertThat(owner.health().registrations().lastRenewalAt()).isNotNull());
        assertThat(owner.health().registrations().failedRenewals()).isZero();
    }

    @Test
    void sharedResourcesStayOpenWhenTheClientCloses() throws Exception {
        ClientResources resources = ClientResources.create();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger threadsMade = new AtomicInteger();
        try {
            LodestarClient client = RedisLodestar.builder(options(b -> b)).clientResources(resources)
                    .scheduler(scheduler).threadFactory(runnable -> {
                        Thread thread = new Thread(runnable, "app-" + threadsMade.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    }).build();
            client.registry().register(instance("orders", "orders-1"));
            List<String> threads = new CopyOnWriteArrayList<>();
            client.config().subscribe("app", event -> threads.add(Thread.currentThread().getName()));
            client.config().set("app", "v1", ConfigFormat.TEXT);
            await().atMost(BOUND).untilAsserted(() -> assertThat(threads).singleElement().asString()
                    .startsWith("app-"));

            client.close();

            assertThat(resources.eventExecutorGroup().isShuttingDown()).isFalse();
            assertThat(scheduler.isShutdown()).isFalse();
            assertThat(threadsMade.get()).isPositive();
        } finally {
            scheduler.shutdownNow();
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void clientsSharingResourcesSchedulerAndExecutorStartNoThreadOfTheirOwnAndEachStillHearsEveryChange()
            throws Exception {
        // given ten clients of one JVM built with the same Lettuce resources, scheduler and executor
        ClientResources resources = ClientResources.create();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        ExecutorService executor = Executors.newCachedThreadPool();
        AtomicInteger threadsMade = new AtomicInteger();
        List<LodestarClient> crowd = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                crowd.add(RedisLodestar.builder(options(b -> b)).clientResources(resources).scheduler(scheduler)
                        .executor(executor).threadFactory(runnable -> {
                            threadsMade.incrementAndGet();
                            return new Thread(runnable);
                        }).build());
            }
            List<List<Long>> heard = new ArrayList<>();
            for (LodestarClient client : crowd) {
                List<Long> versions = new CopyOnWriteArrayList<>();
                heard.add(versions);
                client.config().subscribe("app", event -> versions.add(event.version()));
            }

            // when one writes three versions, and another client closes meanwhile
            LodestarClient writer = crowd.get(0);
            writer.config().set("app", "v1", ConfigFormat.TEXT);
            crowd.remove(9).close();
            heard.remove(9);
            writer.config().set("app", "v2", ConfigFormat.TEXT);
            writer.config().set("app", "v3", ConfigFormat.TEXT);

            // then no client made a thread, each one left hears every version in order, and the shared ones run on
            await().atMost(BOUND).untilAsserted(() -> assertThat(heard).allSatisfy(versions ->
                    assertThat(versions).containsExactly(1L, 2L, 3L)));
            assertThat(threadsMade).as("threads the clients made").hasValue(0);
            assertThat(executor.isShutdown()).isFalse();
        } finally {
            crowd.forEach(LodestarClient::close);
            executor.shutdownNow();
            scheduler.shutdownNow();
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void startupModeDecidesWhetherAnUnreachableRedisFailsCreation() {
        redis.kill();

        assertThatThrownBy(() -> RedisLodestar.create(options(b -> b)))
                .isInstanceOf(UnavailableException.class).hasMessageContaining("startupMode OFFLINE");

        try (LodestarClient offline = RedisLodestar.create(options(b -> b.startupMode(StartupMode.OFFLINE)))) {
            assertThat(offline.health().healthy()).isFalse();
            assertThatThrownBy(() -> offline.registry().register(instance("orders", "orders-1")))
                    .isInstanceOf(UnavailableException.class);

            redis.restart();
            await().atMost(BOUND).ignoreException(UnavailableException.class).untilAsserted(() ->
                    assertThat(offline.registry().register(instance("orders", "orders-1")).revision()).isPositive());
            await().atMost(BOUND).untilAsserted(() -> assertThat(offline.health().healthy()).isTrue());
        }
    }

    private LodestarOptions options(UnaryOperator<LodestarOptions.Builder> customizer) {
        return customizer.apply(LodestarOptions.builder(redis.uri()).namespace(clients.namespace())
                .commandTimeout(Duration.ofSeconds(2))).build();
    }

}
