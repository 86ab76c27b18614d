package io.lodestar.redis;

import io.lodestar.core.ClientClosedException;
import io.lodestar.core.ConfigService;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.UnavailableException;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;

import static io.lodestar.redis.Clients.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A client's life: creation that fails releases everything, and a closed client says it is closed. */
class LifecycleIT extends NamespaceTest {

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void createsThatFailLeaveNoThreadOrConnectionBehind() throws Exception {
        long connectionsBefore = connections(); // first: it opens the test's own connection and its threads
        long threadsBefore = clientThreads();
        Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
        String closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = "redis://127.0.0.1:" + socket.getLocalPort();
        }
        LodestarOptions unreachable = LodestarOptions.builder(closedPort).commandTimeout(Duration.ofMillis(500))
                .build();

        List<UnaryOperator<LodestarOptions.Builder>> outOfRanges = List.of(o -> o.sweepInterval(forever),
                o -> o.reconcileInterval(forever), o -> o.idleViewTimeout(forever), o -> o.commandTimeout(forever));

        for (int attempt = 0; attempt < 3; attempt++) {
            for (UnaryOperator<LodestarOptions.Builder> outOfRange : outOfRanges) {
                assertThatThrownBy(() -> clients.connect(outOfRange))
                        .isInstanceOf(InvalidArgumentException.class)
                        .hasMessageContaining("must be between");
            }
            assertThatThrownBy(() -> RedisLodestar.create(unreachable)).isInstanceOf(UnavailableException.class);
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(clientThreads()).as("lodestar and lettuce threads").isLessThanOrEqualTo(threadsBefore);
            assertThat(connections()).as("connections to Redis").isLessThanOrEqualTo(connectionsBefore);
        });
    }

    @Test
    void everyCallAfterCloseSaysTheClientIsClosed() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client.discovery().getInstances("orders"); // held by the view before close
        client.config().get("app");

        client.close();

        ServiceRegistry registry = client.registry();
        ConfigService config = client.config();
        List<ThrowingCallable> calls = List.of(
                () -> registry.register(instance("orders", "orders-2")),
                () -> registry.renew("orders", "orders-1"),
                () -> registry.deregister("orders", "orders-1"),
                () -> registry.setMetadata("orders", "orders-1", Map.of("a", "b")),
                () -> registry.updateMetadata("orders", "orders-1", Map.of("a", "b"), Set.of()),
                () -> registry.setStatus("orders", "orders-1", InstanceStatus.DOWN),
                () -> client.discovery().getInstances("orders"),
                () -> client.discovery().getInstances("payments"),
                () -> client.discovery().getInstance("orders", "orders-1"),
                () -> client.discovery().getSnapshot("orders"),
                () -> client.discovery().getServices(),
                () -> client.discovery().subscribe("orders", event -> { }),
                () -> client.discovery().subscribeServices(event -> { }),
                () -> client.directDiscovery().getInstances("orders"),
                () -> client.directDiscovery().getServices(),
                () -> config.get("app"),
                () -> config.get("other"),
                () -> config.set("app", "a=2", ConfigFormat.PROPERTIES),
                () -> config.compareAndSet("app", "a=2", ConfigFormat.PROPERTIES, 1),
                () -> config.remove("app"),
                () -> config.list(),
                () -> config.history("app"),
                () -> config.getVersion("app", 1),
                () -> config.rollback("app", 1),
                () -> config.subscribe("app", event -> { }),
                () -> config.subscribeAll(event -> { }));
        for (ThrowingCallable call : calls) {
            assertThatThrownBy(call).isInstanceOf(ClientClosedException.class)
                    .hasMessageContaining("namespace '" + clients.namespace() + "'")
                    .hasMessageContaining("is closed");
        }
        List<CompletionStage<?>> asyncCalls = List.of(
                registry.async().register(instance("orders", "orders-2")),
                registry.async().renew("orders", "orders-1"),
                registry.async().deregister("orders", "orders-1"),
                registry.async().setMetadata("orders", "orders-1", Map.of("a", "b")),
                registry.async().updateMetadata("orders", "orders-1", Map.of("a", "b"), Set.of()),
                registry.async().setStatus("orders", "orders-1", InstanceStatus.DOWN),
                config.async().set("app", "a=2", ConfigFormat.PROPERTIES),
                config.async().compareAndSet("app", "a=2", ConfigFormat.PROPERTIES, 1),
                config.async().remove("app"),
                config.async().list(),
                config.async().history("app"),
                config.async().getVersion("app", 1),
                config.async().rollback("app", 1));
        for (CompletionStage<?> stage : asyncCalls) {
            assertThat(stage.toCompletableFuture()).failsWithin(Duration.ofSeconds(5))
                    .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(ClientClosedException.class);
        }
    }

    @Test
    void registrationsThatCompleteWhileCloseRunsDoNotStayInRedis() {
        LodestarClient client = clients.connect();
        LodestarClient observer = clients.connect();
        List<CompletionStage<?>> pending = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            pending.add(client.registry().async().register(ServiceInstance.builder("orders", "orders-" + i)
                    .host("10.0.0.1").port(8080).ttl(Duration.ofMinutes(5)).build()));
        }

        client.close();

        assertThat(pending).allSatisfy(stage -> assertThat(stage.toCompletableFuture()).isDone());
        assertThat(observer.directDiscovery().getInstances("orders")).isEmpty();
    }

    @Test
    void closeDeregistersEphemeralInstancesAndKeepsPersistentOnes() {
        LodestarClient client = clients.connect();
        LodestarClient observer = clients.connect();
        client.registry().register(instance("orders", "ephemeral-1"));
        client.registry().register(ServiceInstance.builder("orders", "persistent-1").host("10.0.0.2").port(8080)
                .persistent().build());

        client.close();

        assertThat(observer.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("persistent-1");
    }

    private static long clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(thread -> thread.getName().startsWith("lodestar-") || thread.getName().startsWith("lettuce-"))
                .count();
    }

    private long connections() {
        return redis().clientList().lines().filter(line -> !line.isBlank()).count();
    }
}
