package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Convergence under faults, on a private Redis this test may kill: whatever happens to connections, events or
 * the server, every view ends up equal to what Redis holds, within a bounded time. The tests run at the same time
 * (see junit-platform.properties): each kills, restarts and disconnects only its own Redis.
 */
class DiscoveryFaultIT extends PrivateRedisTest {
    private static final Duration CONVERGENCE = Duration.ofSeconds(10);


    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void viewsConvergeAfterTheirPubSubConnectionsAreKilledWhileOthersWrite() {
        LodestarClient writer = clients.connect();
        List<LodestarClient> readers = List.of(clients.connect(), clients.connect(), clients.connect());
        readers.forEach(reader -> reader.discovery().getInstances("orders"));

        assertThat(redis.disconnectClients("pubsub")).as("subscribers killed").isGreaterThanOrEqualTo(3);
        for (int i = 0; i < 20; i++) {
            writer.registry().register(instance("orders", "orders-" + i));
            if (i % 5 == 0) {
                redis.disconnectClients("pubsub"); // again, whether or not they are back yet
            }
        }
        writer.registry().deregister("orders", "orders-3");

        assertViewsConverge(writer.directDiscovery(), readers, "orders");
        assertThat(readers.get(0).discovery().getInstances("orders")).hasSize(19);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void manyWritersAndViewsConvergeDespiteKilledConnections() {
        List<LodestarClient> writers = List.of(clients.connect(), clients.connect(), clients.connect());
        List<LodestarClient> readers = List.of(clients.connect(), clients.connect());
        readers.forEach(reader -> reader.discovery().getInstances("orders"));
        Random random = new Random(7);

        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers.size(); w++) {
            LodestarClient writer = writers.get(w);
            String prefix = "w" + w + "-";
            Random own = new Random(random.nextLong());
            Thread thread = new Thread(() -> {
                for (int op = 0; op < 60; op++) {
                    String id = prefix + own.nextInt(8);
                    try {
                        if (own.nextBoolean()) {
                            writer.registry().register(instance("orders", id));
                        } else {
                            writer.registry().deregister("orders", id);
                        }
                    } catch (UnavailableException killedMidCall) {
                        // the command connection may be killed too; the next operation goes on
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (int kill = 0; kill < 3; kill++) {
            redis.disconnectClients("pubsub");
            redis.disconnectClients("normal");
        }
        threads.forEach(DiscoveryFaultIT::join);

        assertViewsConverge(writers.get(0).directDiscovery(), readers, "orders");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aRevisionGapMakesTheViewRereadTheService() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect(options -> options.reconcileInterval(Duration.ofHours(1)));
        writer.registry().register(instance("orders", "orders-1"));
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);

        // an event lost on the way: the write happens, its event never reaches anyone
        writeBehindTheViewsBack("orders", "orders-ghost");
        writer.registry().register(instance("orders", "orders-2"));

        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(reader.discovery().getInstances("orders"))
                .extracting(ServiceInstance::instanceId).containsExactly("orders-1", "orders-2", "orders-ghost"));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void thePeriodicReconcileRepairsAViewThatMissedTheLastEvent() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect(options -> options.reconcileInterval(Duration.ofSeconds(2)));
        writer.registry().register(instance("orders", "orders-1"));
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);

        writeBehindTheViewsBack("orders", "orders-ghost"); // no event follows to reveal a gap

        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(reader.discovery().getInstances("orders")).hasSize(2));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aListenerHearsOfAnExpiryOnlyForAnInstanceItHoldsAndOfAResyncOnlyWhenSomethingChanged() {
        // nobody sweeps or reconciles until the test says so
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false)
                .sweepInterval(Duration.ofHours(1)).reconcileInterval(Duration.ofHours(1)));
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options -> options
                .sweepInterval(Duration.ofHours(1)).reconcileInterval(Duration.ofHours(1)));
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build());
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);
        owner.close(); // a crash: the instance is past its deadline after 1 s, and nobody sweeps it
        await().atMost(CONVERGENCE).until(() -> reader.directDiscovery().getInstances("orders").isEmpty());

        // the reader resyncs while the instance is overdue but not swept: its state has not changed
        long resyncs = reader.serviceView.resyncs.sum();
        redis.disconnectClients("pubsub");
        await().atMost(CONVERGENCE).until(() -> reader.serviceView.resyncs.sum() > resyncs);
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);

        clients.connect(); // sweeps every 0.5 s

        await().atMost(CONVERGENCE).until(() -> reader.discovery().getInstances("orders").isEmpty());
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(events).singleElement()
                .isInstanceOfSatisfying(InstanceExpired.class, expired ->
                        assertThat(expired.instanceId()).isEqualTo("orders-1")));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void whileRedisIsDownReadsServeTheLastViewAndSayItIsStaleAndWritesFailFast() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        assertThat(client.discovery().getInstances("orders")).hasSize(1);
        assertThat(client.discovery().status().stale()).isFalse();

        redis.kill();

        await().atMost(CONVERGENCE).until(() -> client.discovery().status().stale());
        assertThat(client.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1");
        assertThat(client.discovery().status().staleFor()).isPositive();
        assertThatThrownBy(() -> client.registry().register(instance("orders", "orders-2")))
                .isInstanceOf(UnavailableException.class)
                .hasMessageContaining("register orders/orders-2")
                .hasMessageContaining(redis.uri());
        assertThatThrownBy(() -> client.discovery().getInstances("billing"))
                .isInstanceOf(UnavailableException.class);

        redis.restart();

        // the SDK heals by itself: renewals bring the instance back into the empty Redis, the view resyncs
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(client.discovery().status().stale()).isFalse();
            client.registry().register(instance("orders", "orders-2"));
            assertThat(client.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .contains("orders-2");
        });
        assertThat(client.discovery().getInstances("billing")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void whileRedisIsDownEveryAsyncRegistryCallFailsWithUnavailableExceptionNotALettuceOne() {
        LodestarClient client = clients.connect();
        for (int i = 1; i <= 3; i++) {
            client.registry().register(instance("orders", "orders-" + i));
        }

        redis.kill();
        await().atMost(CONVERGENCE).until(() -> client.discovery().status().stale());

        AsyncRegistryCalls.every().forEach((name, call) ->
                assertThatThrownBy(() -> call.apply(client.registry().async()).toCompletableFuture().join())
                        .as(name).isInstanceOf(CompletionException.class)
                        .hasCauseInstanceOf(UnavailableException.class)
                        .hasMessageContaining(redis.uri()));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void everyAsyncRegistryCallSucceedsAfterRedisForgotTheScripts() {
        LodestarClient client = clients.connect();
        for (int i = 1; i <= 3; i++) {
            client.registry().register(instance("orders", "orders-" + i));
        }

        AsyncRegistryCalls.every().forEach((name, call) -> {
            flushScripts(); // every call meets NOSCRIPT first
            assertThatCode(() -> call.apply(client.registry().async()).toCompletableFuture().join()).as(name)
                    .doesNotThrowAnyException();
        });
        assertThat(client.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1", "orders-9");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void afterARedisRestartLosesAllDataEveryViewMatchesWhatRedisHoldsAgain() {
        LodestarClient owner = clients.connect();
        LodestarClient reader = clients.connect();
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(2)).build());
        owner.registry().register(ServiceInstance.builder("orders", "persistent-1").host("h").port(1).persistent()
                .build());
        assertThat(reader.discovery().getInstances("orders")).hasSize(2);

        redis.kill();
        redis.restart(); // empty: the persistent instance is gone, the ephemeral one comes back with its renewal

        // the direct reads may meet the command connection still reconnecting: only the outcome counts; the view keeps
        // the lost persistent instance for the outage grace (nobody registers it again), then it leaves
        await().atMost(Sweeper.RECONNECT_ALLOWANCE.plus(CONVERGENCE)).ignoreException(UnavailableException.class)
                .untilAsserted(() -> {
                    assertThat(owner.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                            .containsExactly("orders-1");
                    assertThat(reader.discovery().getInstances("orders"))
                            .isEqualTo(owner.directDiscovery().getInstances("orders"));
                });
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void scriptsAreReloadedTransparentlyAfterRedisForgetsThem() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));

        flushScripts();

        client.registry().register(instance("orders", "orders-2"));
        assertThat(client.directDiscovery().getInstances("orders")).hasSize(2);
    }

    private void flushScripts() {
        try (RedisClient raw = RedisClient.create(redis.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            connection.sync().scriptFlush();
        }
    }

    private void writeBehindTheViewsBack(String service, String instanceId) {
        Keys.ServiceKeys keys = new Keys(Namespace.of(clients.namespace())).service(service);
        try (RedisClient raw = RedisClient.create(redis.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            RedisCommands<String, String> sync = connection.sync();
            String json = Json.instance(instance(service, instanceId).toBuilder().persistent().build());
            sync.hset(keys.instances(), instanceId, json.substring(0, json.length() - 1) + ",\"registeredAt\":1}");
            sync.hincrby(keys.instances(), Keys.REVISION_FIELD, 1);
        }
    }

    private static void assertViewsConverge(ServiceDiscovery direct, List<LodestarClient> readers, String service) {
        // the reference read may meet a command connection that is still reconnecting; views must converge anyway
        await().atMost(CONVERGENCE).ignoreException(UnavailableException.class).untilAsserted(() -> {
            List<ServiceInstance> truth = direct.getInstances(service);
            for (LodestarClient reader : readers) {
                assertThat(reader.discovery().getInstances(service)).isEqualTo(truth);
            }
        });
    }

    private static void join(Thread thread) {
        try {
            thread.join(Duration.ofSeconds(60).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertThat(thread.isAlive()).as("writer thread finished").isFalse();
    }
}
