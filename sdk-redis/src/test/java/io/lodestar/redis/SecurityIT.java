package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.AccessDeniedException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRule;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.lodestar.redis.Clients.instance;
import static io.lodestar.redis.Clients.persistent;
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
        admin("ACL SETUSER lodestar on >" + SECRET + " " + String.join(" ", LeastPrivilege.ACL_RULES));
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
            writer.registry().setMetadata("orders", "orders-2", Map.of("zone", "eu-1"));
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
            writer.config().startGray("orders/limits", "max: 3", ConfigFormat.YAML, GrayRule.percent(10));
            writer.config().updateGray("orders/limits", "max: 3", ConfigFormat.YAML, GrayRule.percent(50));
            assertThat(reader.config().gray("orders/limits")).isPresent();
            writer.config().promoteGray("orders/limits", -1);
            writer.config().startGray("orders/limits", "max: 4", ConfigFormat.YAML, GrayRule.percent(10));
            assertThat(writer.config().abortGray("orders/limits")).isTrue();
            assertThat(writer.config().history("orders/limits")).hasSize(4);
            assertThat(writer.config().list()).containsExactly("orders/limits");
            assertThat(writer.config().remove("orders/limits")).isTrue();
            assertThat(reader.config().log("orders/limits", 100)).hasSize(9);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(configEvents).hasSize(5));
            assertThat(reader.config().get("orders/limits")).isEmpty();
            assertThat(writer.config().purge("orders/limits")).isTrue();
            writer.registry().deregister("orders", "orders-1");
            assertThat(writer.registry().purge("orders")).isTrue();

            // and every read path, the large and the paged ones included
            readEveryPath(reader, writer);
        }
        assertThat(refusals()).as("ACL LOG").isEmpty();
        assertThat(scriptsRun()).as("every script ran as this user").containsAll(scripts(name -> true));
    }

    @Test
    void aReaderAclUserRunsEveryReadPath() {
        admin("ACL SETUSER reader on >" + SECRET + " " + String.join(" ", LeastPrivilege.READER_ACL_RULES));
        String host = "@" + redis.host() + ":" + redis.port();

        try (Clients writers = new Clients(redis.uri())) {
            Clients readers = writers.sameNamespace("redis://reader:" + SECRET + host);
            LodestarClient writer = writers.connect();
            LodestarClient reader = readers.connect();

            readEveryPath(reader, writer);
            // its client tries the sweep lock every interval (half a second here), however long the reads took, and
            // records the config version it applied as it takes it (both refused: awaited, as they run in the
            // background). The sweep's first command a reader may not call is its look at the lock key's type (TYPE:
            // the read scripts call none, see LeastPrivilege.READER_ACL_RULES), the record's is HSET.
            await().atMost(Duration.ofSeconds(5)).until(() -> refusals().stream()
                    .map(refusal -> refusal.get("object")).toList().containsAll(List.of("type", "hset")));
            readers.close();
        }
        // the reader's client tried to take the sweep lock and, once, to record the config version it applied (then
        // it stops: a reader is not listed in who-runs-what), and no more
        assertThat(refusals()).as("ACL LOG").extracting(refusal -> refusal.get("object")).containsOnly("type", "hset");
        assertThat(scriptsRun()).as("every read script ran").containsAll(scripts(name -> name.startsWith("read_")));
    }

    /**
     * Every script a view or a read runs, as {@code reader}: a service of more than one page of instances (its view,
     * a direct read and its leases), batched loads (a preload, a resync of several services after the subscriber
     * was cut), a config history of more than one page, the replay of what a listener missed, the config index.
     */
    private void readEveryPath(LodestarClient reader, LodestarClient writer) {
        int large = RegistryReads.PAGE + 500;
        CompletableFuture.allOf(IntStream.range(0, large).mapToObj(i -> writer.registry().async()
                .register(instance("large", "large-" + i)).toCompletableFuture())
                .toArray(CompletableFuture[]::new)).join();
        for (String service : List.of("a", "b", "c")) {
            writer.registry().register(instance(service, service + "-1"));
        }
        int versions = 5; // about 5 MB: more than one page of history
        for (int v = 1; v <= versions; v++) {
            writer.config().set("big", Character.toString('a' + v).repeat(1_000_000), ConfigFormat.TEXT);
        }

        assertThat(reader.discovery().getInstances("large")).hasSize(large);
        assertThat(reader.directDiscovery().getInstances("large")).hasSize(large);
        assertThat(reader.registry().timeToLive("large")).hasSize(large);
        reader.discovery().preload(List.of("a", "b")).toCompletableFuture().join();
        assertThat(reader.discovery().getInstances("c")).hasSize(1);
        assertThat(reader.discovery().getServices()).contains("large", "a", "b", "c");
        assertThat(reader.config().history("big")).hasSize(versions);
        assertThat(reader.config().getVersion("big", 1)).isPresent();
        List<Long> heard = new CopyOnWriteArrayList<>();
        reader.config().subscribe("big", event -> heard.add(event.version()));
        List<String> added = new CopyOnWriteArrayList<>();
        reader.config().subscribeAll(event -> added.add(event.configId()));
        assertThat(reader.config().list()).contains("big");

        await().atMost(Duration.ofSeconds(5)).until(() -> redis.disconnectClients("pubsub") > 0);
        writer.config().set("big", "f", ConfigFormat.TEXT);
        writer.config().set("big", "g", ConfigFormat.TEXT);
        for (String service : List.of("a", "b", "c")) {
            writer.registry().register(instance(service, service + "-2"));
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(heard).containsExactly((long) versions + 1, (long) versions + 2);
            for (String service : List.of("a", "b", "c")) {
                assertThat(reader.discovery().getInstances(service)).hasSize(2);
            }
        });
    }

    /** Every refusal Redis logged (ACL LOG): what was refused ({@code object}) and why ({@code reason}). */
    private List<Map<String, Object>> refusals() {
        try (RedisClient raw = RedisClient.create(redis.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            return connection.sync().aclLog();
        }
    }

    /** The names of the scripts Redis has cached: each ran at least once since it started. */
    private Set<String> scriptsRun() {
        try (RedisClient raw = RedisClient.create(redis.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            List<LuaScript> all = scripts(name -> true).stream().map(LuaScript::load).toList();
            List<Boolean> cached = connection.sync().scriptExists(all.stream().map(LuaScript::sha)
                    .toArray(String[]::new));
            return IntStream.range(0, all.size()).filter(cached::get).mapToObj(i -> all.get(i).name())
                    .collect(Collectors.toSet());
        }
    }

    private static List<String> scripts(Predicate<String> names) {
        return Stream.of(Scripts.class, ConfigScripts.class).flatMap(holder -> Stream.of(holder.getDeclaredFields()))
                .filter(field -> field.getType() == LuaScript.class).map(field -> script(field).name())
                .filter(names).toList();
    }

    private static LuaScript script(Field field) {
        try {
            return (LuaScript) field.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
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
    void aUserOfOneNamespaceCannotReadANamespaceWhoseNameStartsTheSame() {
        // given a reader of namespace prod, by the documented per-namespace rules
        List<String> rules = LeastPrivilege.forNamespace(LeastPrivilege.READER_ACL_RULES, Namespace.of("prod"));
        admin("ACL SETUSER prod-reader on >" + SECRET + " " + String.join(" ", rules));
        String prodReader = "redis://prod-reader:" + SECRET + "@" + redis.host() + ":" + redis.port();
        for (String namespace : List.of("prod", "prod2")) {
            try (LodestarClient writer = RedisLodestar.create(LodestarOptions.builder(redis.uri())
                    .namespace(namespace).build())) {
                writer.registry().register(persistent("orders", "orders-1"));
                writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
            }
        }

        // when it reads prod, it sees prod
        try (LodestarClient prod = RedisLodestar.create(LodestarOptions.builder(prodReader).namespace("prod")
                .build())) {
            assertThat(prod.discovery().getInstances("orders")).hasSize(1);
            assertThat(prod.discovery().getServices()).containsExactly("orders");
            assertThat(prod.config().get("app")).isPresent();
        }
        // and when it reads prod2, Redis refuses every key
        try (LodestarClient prod2 = RedisLodestar.create(LodestarOptions.builder(prodReader).namespace("prod2")
                .build())) {
            assertThatThrownBy(() -> prod2.discovery().getInstances("orders"))
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("NOPERM");
            assertThatThrownBy(() -> prod2.discovery().getServices())
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("NOPERM");
            assertThatThrownBy(() -> prod2.config().get("app"))
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("NOPERM");
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
