package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.AccessDeniedException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** AUTH and ACL through the URI; secrets never show in messages or toString(). */
class SecurityIT {
    private static final String SECRET = "s3cret-Pa55";

    private RedisServer redis;

    @BeforeEach
    void privateRedis() {
        redis = TestRedis.startStandalone();
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    @Test
    void aLeastPrivilegeAclUserCanDoEverythingLodestarDoes() {
        String rules = String.join(" ", LeastPrivilege.ACL_RULES);
        admin("ACL SETUSER lodestar on >" + SECRET + " " + rules);
        String uri = "redis://lodestar:" + SECRET + "@" + redis.host() + ":" + redis.port();

        try (Clients clients = new Clients(uri)) {
            LodestarClient crashing = clients.connect(options -> options.deregisterOnClose(false));
            LodestarClient writer = clients.connect();
            LodestarClient reader = clients.connect();
            crashing.registry().register(ServiceInstance.builder("orders", "orders-0").host("h").port(1)
                    .ttl(Duration.ofSeconds(1)).build());
            writer.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                    .ttl(Duration.ofSeconds(1)).build());
            writer.registry().register(instance("orders", "orders-2"));
            writer.registry().setMetadata("orders", "orders-2", java.util.Map.of("zone", "eu-1"));
            assertThat(reader.discovery().getInstances("orders")).hasSize(3);
            assertThat(reader.discovery().getServices()).containsExactly("orders");
            crashing.close(); // its instance must now expire: renewals, sweeper lock and sweep all run as this user
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(reader.discovery().getInstances("orders")).hasSize(2));
            assertThat(reader.directDiscovery().getInstances("orders")).hasSize(2);

            writer.registry().deregister("orders", "orders-2");
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(reader.discovery().getInstances("orders")).hasSize(1));

            // and every config operation
            List<ConfigEvent> configEvents = new CopyOnWriteArrayList<>();
            reader.config().subscribe("orders/limits", configEvents::add);
            ConfigEntry v1 = writer.config().set("orders/limits", "max: 1", ConfigFormat.YAML);
            writer.config().compareAndSet("orders/limits", "max: 2", ConfigFormat.YAML, v1.version());
            writer.config().rollback("orders/limits", v1.version());
            assertThat(writer.config().history("orders/limits")).hasSize(3);
            assertThat(writer.config().list()).containsExactly("orders/limits");
            assertThat(writer.config().remove("orders/limits")).isTrue();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(configEvents).hasSize(4));
            assertThat(reader.config().get("orders/limits")).isEmpty();
        }
    }

    @Test
    void anAclUserThatMayNotRunScriptsGetsAccessDeniedFromEveryAsyncRegistryCall() {
        List<String> rules = new ArrayList<>(LeastPrivilege.ACL_RULES);
        rules.removeAll(List.of("+evalsha", "+eval"));
        admin("ACL SETUSER lodestar on >" + SECRET + " " + String.join(" ", rules));
        String uri = "redis://lodestar:" + SECRET + "@" + redis.host() + ":" + redis.port();

        try (Clients clients = new Clients(uri)) {
            LodestarClient client = clients.connect();

            AsyncRegistryCalls.every().forEach((name, call) ->
                    assertThatThrownBy(() -> call.apply(client.registry().async()).toCompletableFuture().join())
                            .as(name).isInstanceOf(CompletionException.class)
                            .hasCauseInstanceOf(AccessDeniedException.class)
                            .hasMessageContaining("was refused by Redis").hasMessageContaining("NOPERM"));
        }
    }

    @Test
    void aReaderAclUserReadsAndListensButCanNeitherWriteNorForgeAnEvent() {
        admin("ACL SETUSER lodestar on >" + SECRET + " " + String.join(" ", LeastPrivilege.ACL_RULES));
        admin("ACL SETUSER reader on >" + SECRET + " " + String.join(" ", LeastPrivilege.READER_ACL_RULES));
        String host = "@" + redis.host() + ":" + redis.port();

        try (Clients writers = new Clients("redis://lodestar:" + SECRET + host)) {
            Clients readers = writers.sameNamespace("redis://reader:" + SECRET + host);
            LodestarClient writer = writers.connect();
            LodestarClient reader = readers.connect();
            writer.registry().register(instance("orders", "orders-1"));
            writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
            List<ConfigEvent> configEvents = new CopyOnWriteArrayList<>();

            assertThat(reader.discovery().getInstances("orders")).hasSize(1);
            assertThat(reader.discovery().getServices()).containsExactly("orders");
            assertThat(reader.config().get("app")).isPresent();
            reader.config().subscribe("app", configEvents::add);
            writer.registry().register(instance("orders", "orders-2"));
            writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(reader.discovery().getInstances("orders")).hasSize(2);
                assertThat(configEvents).hasSize(1);
            });
            assertThatThrownBy(() -> reader.registry().register(instance("orders", "forged")))
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("was refused by Redis");
            assertThat(writer.directDiscovery().getInstances("orders")).as("nothing half-written").hasSize(2);
            try (RedisClient raw = RedisClient.create("redis://reader:" + SECRET + host);
                 StatefulRedisConnection<String, String> connection = raw.connect()) {
                assertThatThrownBy(() -> connection.sync().spublish(new Keys(Namespace.of(writers.namespace()))
                        .service("orders").channel(), "{}")).hasMessageStartingWith("NOPERM");
            }
            readers.close();
        }
    }

    @Test
    void aWrongPasswordFailsClearlyWithoutShowingIt() {
        admin("CONFIG SET requirepass " + SECRET);
        String uri = "redis://:wrong-" + SECRET + "@" + redis.host() + ":" + redis.port();

        assertThatThrownBy(() -> RedisLodestar.create(LodestarOptions.builder(uri).build()))
                .isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("redis://***@" + redis.host())
                .satisfies(failure -> assertThat(failure.getMessage()).doesNotContain(SECRET));
    }

    @Test
    void anAclUserWithoutTheKeysGetsAccessDeniedNotAScriptFailure() {
        // given a user that may run every command Lodestar uses, but on another key prefix only
        admin("ACL SETUSER stranger on >" + SECRET + " ~other:* &other:* +@all");
        String uri = "redis://stranger:" + SECRET + "@" + redis.host() + ":" + redis.port();

        try (LodestarClient client = RedisLodestar.create(LodestarOptions.builder(uri).build())) {
            // when it writes, then Redis' NOPERM is reported as what it is, with the advice to check the ACL
            assertThatThrownBy(() -> client.config().set("orders/limits", "max: 1", ConfigFormat.YAML))
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("NOPERM")
                    .hasMessageContaining("docs/redis.md");
        }
    }

    @Test
    void aPasswordInTheUriAuthenticatesAndNeverShowsInToString() {
        admin("CONFIG SET requirepass " + SECRET);
        LodestarOptions options = LodestarOptions.builder("redis://:" + SECRET + "@" + redis.host() + ":"
                + redis.port()).build();

        try (LodestarClient client = RedisLodestar.create(options)) {
            client.registry().register(instance("orders", "orders-1"));

            assertThat(client.discovery().getInstances("orders")).hasSize(1);
            assertThat(client.toString()).doesNotContain(SECRET);
            assertThat(options.toString()).doesNotContain(SECRET);
        }
    }

    private void admin(String command) {
        RedisAdmin.run(redis, command);
    }
}
