package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.ScriptException;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Keys another program corrupted: a script stops before its first write (Redis does not roll back), says which
 * key is wrong, and expiry goes on everywhere it still can.
 */
class CorruptKeysIT extends NamespaceTest {
    private static final Map<String, BiConsumer<LodestarClient, LodestarClient>> SERVICE_WRITES = Map.of(
            "register changed", (client, other) -> client.registry().register(instance("orders", "orders-1")
                    .toBuilder().host("10.0.0.2").build()),
            "register unchanged", (client, other) -> client.registry().register(instance("orders", "orders-1")),
            "renew (lease)", (client, other) -> client.registry().renew("orders", "orders-1"),
            "renew (explicit)", (client, other) -> other.registry().renew("orders", "orders-1"),
            "deregister", (client, other) -> client.registry().deregister("orders", "orders-1"),
            "setMetadata", (client, other) -> client.registry().setMetadata("orders", "orders-1", Map.of("a", "b")));

    private static final Map<String, Consumer<LodestarClient>> CONFIG_WRITES = Map.of(
            "set", client -> client.config().set("app", "a=3", ConfigFormat.PROPERTIES),
            "set unchanged", client -> client.config().set("app", "a=2", ConfigFormat.PROPERTIES),
            "remove", client -> client.config().remove("app"),
            "rollback", client -> client.config().rollback("app", 1));

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aWriteOnARevisionThatIsNotANumberWritesNothingAndNamesTheKey() {
        LodestarClient client = clients.connect();
        Keys.ServiceKeys orders = keys().service("orders");
        redis().hset(orders.instances(), Keys.REVISION_FIELD, "not-a-number");

        assertThatThrownBy(() -> client.registry().register(instance("orders", "orders-1")))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " field :revision does not hold a revision number");

        assertThat(redis().hkeys(orders.instances())).as("instances written").containsExactly(Keys.REVISION_FIELD);
        assertThat(redis().exists(orders.deadlines())).as("deadlines written").isZero();
    }

    @Test
    void aWriteOnAKeyOfAnotherTypeNamesTheKeyAndItsType() {
        LodestarClient client = clients.connect();
        Keys.ServiceKeys orders = keys().service("orders");
        redis().set(orders.instances(), "a string");

        assertThatThrownBy(() -> client.registry().register(instance("orders", "orders-1")))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " is a string where Lodestar keeps a hash");

        assertThat(redis().exists(orders.deadlines())).as("keys written").isZero();
    }

    @Test
    void aConfigWithACorruptVersionIsReportedNotShownAsAbsent() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        redis().hset(keys().config("app").current(), "version", "x");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(() -> reader.config().get("app")).isInstanceOf(ScriptException.class)
                .hasMessageContaining("field version does not hold a number");
        assertThatThrownBy(() -> writer.config().set("app", "a=2", ConfigFormat.PROPERTIES))
                .isInstanceOf(ScriptException.class).hasMessageContaining("field version does not hold a number");
    }

    @Test
    void aSweepLockWithoutExpiryCannotStopExpiryForLongerThanAnInterval() {
        redis().set(keys().sweeperLock(), "written-without-expiry");
        registerAndAbandon(instance("orders", "orders-1"));
        RedisLodestarClient sweeper = (RedisLodestarClient) clients.connect();

        // the instance gone from Redis, not only from direct reads (which leave an overdue instance out unswept)
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(redis().hexists(keys().service("orders").instances(), "orders-1")).isFalse());
        assertThat(sweeper.sweeper().failures.sum()).as("failures counted").isPositive();
    }

    @Test
    void aCorruptServiceIndexDoesNotStopExpiryOfTheServicesAClientViews() {
        registerAndAbandon(instance("orders", "orders-1"));
        redis().del(keys().services().index());
        redis().set(keys().services().index(), "not a hash");
        RedisLodestarClient sweeper = (RedisLodestarClient) clients.connect();
        assertThat(sweeper.discovery().getInstances("orders")).hasSize(1);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(sweeper.directDiscovery().getInstances("orders")).isEmpty();
            assertThat(sweeper.discovery().getInstances("orders")).isEmpty();
        });
        assertThat(sweeper.sweeper().failures.sum()).as("failures counted").isPositive();
    }

    @Test
    void anInstanceEntryThatIsNotJsonIsRemovedByDeregister() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        redis().hset(keys().service("orders").instances(), "orders-1", "{not json");

        assertThat(client.registry().deregister("orders", "orders-1")).isTrue();

        assertThat(redis().hexists(keys().service("orders").instances(), "orders-1")).isFalse();
    }

    @Test
    void anInstanceEntryThatIsNotJsonIsRemovedByEvict() {
        LodestarClient owner = clients.connect();
        owner.registry().register(instance("orders", "orders-1"));
        redis().hset(keys().service("orders").instances(), "orders-1", "[1, 2");
        LodestarClient operator = clients.connect();

        assertThat(operator.registry().evict("orders", "orders-1")).isTrue();

        assertThat(redis().hexists(keys().service("orders").instances(), "orders-1")).isFalse();
    }

    @Test
    void aRegisterOverAnInstanceEntryWithoutRegisteredAtRegistersIt() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-0"));
        Keys.ServiceKeys orders = keys().service("orders");
        redis().hset(orders.instances(), "orders-1", "{\"host\":\"10.0.0.9\",\"port\":80,\"secure\":false,"
                + "\"weight\":100,\"status\":\"UP\",\"ttl\":30000,\"metadata\":{}}");
        long revision = Long.parseLong(redis().hget(orders.instances(), Keys.REVISION_FIELD));

        var registration = client.registry().register(instance("orders", "orders-1"));

        assertThat(registration.instance().registeredAt()).isNotNull();
        assertThat(registration.revision()).isEqualTo(revision + 1);
        assertThat(client.directDiscovery().getInstances("orders")).extracting(ServiceInstance::host)
                .containsExactly("10.0.0.1", "10.0.0.1");
    }

    @Test
    void aConfigIndexFieldThatIsNotANumberCannotFailASetAfterItWrote() {
        LodestarClient client = clients.connect();
        redis().hset(keys().configs().index(), "app", "not-a-number");

        var entry = client.config().set("app", "a=1", ConfigFormat.PROPERTIES);

        assertThat(entry.version()).isEqualTo(1);
        assertThat(redis().hget(keys().configs().index(), "app")).as("the index field, repaired").isEqualTo("1");
        assertThat(client.config().list()).containsExactly("app");
    }

    /** Every key of a service a register of a new ephemeral instance writes, corrupted in turn. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"instances", "deadlines", "revision", "tombstones", "due"})
    void aRegisterOnAServiceKeyOfAnotherTypeWritesNothingAndNamesTheKey(String kind) {
        LodestarClient client = serviceWithEveryKey();
        String key = corrupt(kind);
        Map<String, String> before = serviceKeys();

        assertThatThrownBy(() -> client.registry().register(instance("orders", "orders-3")))
                .isInstanceOf(ScriptException.class).hasMessageContaining(key);

        assertThat(serviceKeys()).as("keys after the failed register").isEqualTo(before);
    }

    /** Any service write on any corrupt key: it succeeds (it needed nothing of that key), or fails before writing. */
    @ParameterizedTest(name = "{0} with a corrupt {1}")
    @MethodSource("serviceWritesAndKeys")
    void aServiceWriteOnACorruptKeyIsNeverHalfDone(String write, String kind) {
        LodestarClient client = serviceWithEveryKey();
        LodestarClient other = clients.connect();
        String key = corrupt(kind);
        Map<String, String> before = serviceKeys();

        try {
            SERVICE_WRITES.get(write).accept(client, other);
        } catch (ScriptException failed) {
            assertThat(failed).hasMessageContaining(key);
            assertThat(serviceKeys()).as("keys after the failed " + write).isEqualTo(before);
        }
    }

    /** Every key of a config entry a set writes, corrupted in turn. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"current", "history", "revision"})
    void aConfigSetOnAKeyOfAnotherTypeWritesNothingAndNamesTheKey(String kind) {
        LodestarClient client = clients.connect();
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        String key = corruptConfig(kind);
        Map<String, String> before = configKeys();

        assertThatThrownBy(() -> client.config().set("app", "a=3", ConfigFormat.PROPERTIES))
                .isInstanceOf(ScriptException.class).hasMessageContaining(key);

        assertThat(configKeys()).as("keys after the failed set").isEqualTo(before);
    }

    @Test
    void aConfigWhoseStampAnotherProgramDeletedGoesOnAfterItsNewestKeptVersionUnderANewIncarnation() {
        LodestarClient client = clients.connect();
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        Keys.ConfigKeys app = keys().config("app");
        String incarnation = redis().hget(app.current(), Keys.INCARNATION_FIELD);
        redis().del(app.current()); // the entry and its stamp; the history stays

        ConfigEntry set = client.config().set("app", "a=3", ConfigFormat.PROPERTIES);

        // a version number is never reused: the stream's IDs go up, and views tell the new incarnation
        assertThat(set.version()).isEqualTo(3);
        assertThat(redis().hget(app.current(), Keys.INCARNATION_FIELD)).isNotNull().isNotEqualTo(incarnation);
        assertThat(client.config().history("app")).extracting(ConfigEntry::version).containsExactly(3L, 2L, 1L);
    }

    /** Any config write on any corrupt key: it succeeds (it needed nothing of that key), or fails before writing. */
    @ParameterizedTest(name = "{0} with a corrupt {1}")
    @MethodSource("configWritesAndKeys")
    void aConfigWriteOnACorruptKeyIsNeverHalfDone(String write, String kind) {
        LodestarClient client = clients.connect();
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        String key = corruptConfig(kind);
        Map<String, String> before = configKeys();

        try {
            CONFIG_WRITES.get(write).accept(client);
        } catch (ScriptException failed) {
            assertThat(failed).hasMessageContaining(key);
            assertThat(configKeys()).as("keys after the failed " + write).isEqualTo(before);
        }
    }

    static Stream<Arguments> serviceWritesAndKeys() {
        return SERVICE_WRITES.keySet().stream().sorted().flatMap(write -> Stream.of("instances", "deadlines",
                "revision", "tombstones", "due").map(kind -> Arguments.of(write, kind)));
    }

    static Stream<Arguments> configWritesAndKeys() {
        return CONFIG_WRITES.keySet().stream().sorted().flatMap(write -> Stream.of("current", "history",
                "revision").map(kind -> Arguments.of(write, kind)));
    }

    /** orders-1 and orders-2 registered (ephemeral), orders-2 deregistered: every key of the service exists. */
    private LodestarClient serviceWithEveryKey() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        client.registry().register(instance("orders", "orders-2"));
        client.registry().deregister("orders", "orders-2");
        return client;
    }

    /**
     * Replaces a key of the service with one of another type (a string for a hash or set, a hash for a string), or
     * for "revision" the revision in the service's stamp (a field of its instances hash) with a word; returns the key
     * the failure must name.
     */
    private String corrupt(String kind) {
        Keys.ServiceKeys orders = keys().service("orders");
        if (kind.equals("revision")) {
            redis().hset(orders.instances(), Keys.REVISION_FIELD, "not-a-number");
            return orders.instances();
        }
        String key = switch (kind) {
            case "instances" -> orders.instances();
            case "deadlines" -> orders.deadlines();
            case "tombstones" -> orders.tombstones();
            case "due" -> orders.due();
            default -> throw new IllegalArgumentException(kind);
        };
        replace(key);
        return key;
    }

    /**
     * Replaces a key of the config entry with one of another type, or for "revision" the revision in the entry's stamp
     * (a field of its current hash) with a word; returns the key the failure must name.
     */
    private String corruptConfig(String kind) {
        Keys.ConfigKeys app = keys().config("app");
        if (kind.equals("revision")) {
            redis().hset(app.current(), Keys.REVISION_FIELD, "not-a-number");
            return app.current();
        }
        String key = switch (kind) {
            case "current" -> app.current();
            case "history" -> app.history();
            default -> throw new IllegalArgumentException(kind);
        };
        replace(key);
        return key;
    }

    private void replace(String key) {
        boolean string = redis().type(key).equals("string");
        redis().del(key);
        if (string) {
            redis().hset(key, "field", "value");
        } else {
            redis().set(key, "a string");
        }
    }

    private Map<String, String> serviceKeys() {
        Keys.ServiceKeys orders = keys().service("orders");
        return dump(orders.instances(), orders.deadlines(), orders.tombstones(), orders.due(),
                keys().services().index(), keys().services().revision());
    }

    private Map<String, String> configKeys() {
        Keys.ConfigKeys app = keys().config("app");
        return dump(app.current(), app.history(), keys().configs().index(), keys().configs().revision());
    }

    private Map<String, String> dump(String... keys) {
        Map<String, String> dumped = new LinkedHashMap<>();
        for (String key : keys) {
            byte[] value = redis().dump(key);
            dumped.put(key, value == null ? "absent" : Base64.getEncoder().encodeToString(value));
        }
        return dumped;
    }

    /** Registers an ephemeral instance with a TTL of 1 s that nobody renews. */
    private void registerAndAbandon(ServiceInstance instance) {
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false));
        owner.registry().register(instance.toBuilder().ttl(Duration.ofSeconds(1)).build());
        owner.close();
    }
}
