package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A real embedded Netty server registers itself in Redis when ready and leaves when it stops. */
class LodestarAutoRegistrationIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final String namespace = Contexts.namespace();
    private final LodestarClient other = Contexts.client(namespace);

    @AfterEach
    void closeOther() {
        other.close();
    }

    @Test
    void theServerRegistersWithItsPortAndSettingsWhenReadyAndLeavesWhenStopped() {
        EmbeddedServer server = start(Map.of(
                "lodestar.registration.weight", "3",
                "lodestar.registration.zone", "eu-1",
                "lodestar.registration.metadata.version", "2",
                "micronaut.application.instance.metadata.team", "checkout"));
        try {
            assertThat(other.directDiscovery().getInstances("orders")).singleElement().satisfies(instance -> {
                assertThat(instance.instanceId()).isEqualTo(server.getHost() + ":" + server.getPort());
                assertThat(instance.host()).isEqualTo(server.getHost());
                assertThat(instance.port()).isEqualTo(server.getPort());
                assertThat(instance.weight()).isEqualTo(3);
                assertThat(instance.status()).isEqualTo(InstanceStatus.UP);
                assertThat(instance.ephemeral()).isTrue();
                assertThat(instance.metadata())
                        .containsEntry("zone", "eu-1").containsEntry("version", "2").containsEntry("team", "checkout");
            });
        } finally {
            server.stop();
        }

        await().atMost(WAIT).untilAsserted(() ->
                assertThat(other.directDiscovery().getInstances("orders")).isEmpty());
    }

    @Test
    void aGracefulShutdownTakesTheInstanceOutOfServiceBeforeDeregisteringIt() {
        EmbeddedServer server = start(Map.of("micronaut.lifecycle.graceful-shutdown.enabled", "true"));
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        other.discovery().subscribe("orders", events::add);

        server.getApplicationContext().close(); // what the JVM shutdown hook does on SIGTERM

        await().atMost(WAIT).until(() -> events.stream().anyMatch(InstanceDeregistered.class::isInstance));
        assertThat(events).filteredOn(e -> e instanceof InstanceUpdated || e instanceof InstanceDeregistered)
                .satisfiesExactly(
                        drained -> assertThat(((InstanceUpdated) drained).instance().status())
                                .isEqualTo(InstanceStatus.OUT_OF_SERVICE),
                        gone -> assertThat(gone).isInstanceOf(InstanceDeregistered.class));
    }

    @Test
    void closingTheContextWithoutGracefulShutdownDeregistersCleanly() {
        EmbeddedServer server = start(Map.of());
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        other.discovery().subscribe("orders", events::add);

        server.getApplicationContext().close();

        await().atMost(WAIT).until(() -> events.stream().anyMatch(InstanceDeregistered.class::isInstance));
        assertThat(other.directDiscovery().getInstances("orders")).isEmpty();
    }

    @Test
    void anExplicitInstanceIdAndHostReplaceHostAndPort() {
        EmbeddedServer server = start(Map.of(
                "lodestar.registration.instance-id", "orders-blue-1",
                "lodestar.registration.host", "orders.internal"));
        try {
            assertThat(other.directDiscovery().getInstances("orders")).singleElement().satisfies(instance -> {
                assertThat(instance.instanceId()).isEqualTo("orders-blue-1");
                assertThat(instance.host()).isEqualTo("orders.internal");
                assertThat(instance.port()).isEqualTo(server.getPort());
            });
        } finally {
            server.stop();
        }
    }

    @Test
    void anInvalidRegistrationSettingStopsTheStartUpNamingIt() {
        assertThatThrownBy(() -> start(Map.of("lodestar.registration.weight", "-1",
                "lodestar.registration.instance-id", "-bad")))
                .hasStackTraceContaining("lodestar.registration.weight must be between 0 and 10000, but was -1")
                .hasStackTraceContaining("lodestar.registration.instance-id must be");
        assertThat(other.directDiscovery().getInstances("orders")).isEmpty();
    }

    @Test
    void registrationEnabledFalseKeepsTheServerOutOfRedis() {
        EmbeddedServer server = start(Map.of("lodestar.registration.enabled", "false"));
        try {
            assertThat(server.getApplicationContext().findBean(LodestarAutoRegistration.class)).isEmpty();
            assertThat(server.getApplicationContext().findBean(LodestarClient.class)).isPresent();
            assertThat(other.directDiscovery().getInstances("orders")).isEmpty();
        } finally {
            server.stop();
        }
    }

    @Test
    void aServerStartedWhileRedisIsDownStartsAndRegistersOnceRedisIsBack() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            redis.kill();
            EmbeddedServer server = start(Map.of("lodestar.redis-uri", redis.uri(), "lodestar.command-timeout", "1s"));
            try {
                assertThat(server.isRunning()).isTrue();
                LodestarClient client = server.getApplicationContext().getBean(LodestarClient.class);
                assertThat(client.health().registrations().held()).as("not registered yet").isZero();

                redis.restart();

                try (LodestarClient observer = RedisLodestar.create(LodestarOptions.builder(redis.uri())
                        .namespace(namespace).reconcileInterval(Duration.ofHours(12)).build())) {
                    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                            assertThat(observer.directDiscovery().getInstances("orders"))
                                    .extracting(ServiceInstance::port).containsExactly(server.getPort()));
                }
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void withFailFastRedisDownStopsTheStart() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            redis.kill();

            assertThatThrownBy(() -> start(Map.of("lodestar.redis-uri", redis.uri(), "lodestar.fail-fast", "true",
                    "lodestar.command-timeout", "1s")))
                    .hasStackTraceContaining("Cannot connect to Redis at " + redis.uri());
        }
    }

    /** Starts {@code orders} on a random port; registration is synchronous, so it is in Redis on return. */
    private EmbeddedServer start(Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "micronaut.application.name", "orders",
                "micronaut.server.port", "-1"));
        properties.putAll(extra);
        return ApplicationContext.run(EmbeddedServer.class, Contexts.properties(namespace, properties));
    }
}
