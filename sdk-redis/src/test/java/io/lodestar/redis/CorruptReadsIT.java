package io.lodestar.redis;

import io.lettuce.core.XAddArgs;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ScriptException;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keys another program corrupted, met by a read: the read fails with a {@link ScriptException} that names the key
 * (and the field) and what it should hold, as a write does (see {@link CorruptKeysIT}), never with an
 * "unexpected" parse error or a wrong answer.
 */
class CorruptReadsIT extends NamespaceTest {

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aDirectReadOfAServiceWhoseRevisionIsNotANumberNamesTheKey() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        Keys.ServiceKeys orders = keys().service("orders");
        redis().hset(orders.instances(), Keys.REVISION_FIELD, "not-a-number");

        assertThatThrownBy(() -> client.directDiscovery().getInstances("orders"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " field :revision does not hold a revision number")
                .hasMessageNotContaining("NumberFormatException");
    }

    @Test
    void aViewsFirstReadOfAServiceWhoseRevisionIsNotANumberNamesTheKey() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        Keys.ServiceKeys orders = keys().service("orders");
        redis().hset(orders.instances(), Keys.REVISION_FIELD, "not-a-number");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(() -> reader.discovery().getInstances("orders"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " field :revision does not hold a revision number");
    }

    @Test
    void aPreloadOfAServiceWhoseRevisionIsNotANumberNamesTheKey() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        Keys.ServiceKeys orders = keys().service("orders");
        redis().hset(orders.instances(), Keys.REVISION_FIELD, "12x");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(() -> reader.discovery().preload(List.of("orders")).toCompletableFuture().join())
                .cause().isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " field :revision does not hold a revision number");
    }

    @Test
    void aReadOfAServiceWhoseInstancesKeyIsOfAnotherTypeNamesTheKeyAndItsType() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        Keys.ServiceKeys orders = keys().service("orders");
        redis().del(orders.instances());
        redis().set(orders.instances(), "a string");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(() -> reader.directDiscovery().getInstances("orders"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " is a string where Lodestar keeps a hash");
        assertThatThrownBy(() -> reader.discovery().getInstances("orders"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " is a string where Lodestar keeps a hash");
    }

    @Test
    void aServiceIndexOfAnotherTypeNamesTheKeyAndItsType() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        redis().del(keys().services().index());
        redis().sadd(keys().services().index(), "orders");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(reader.discovery()::getServices)
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(keys().services().index() + " is a set where Lodestar keeps a hash");
    }

    @Test
    void aServiceIndexWhoseRevisionIsNotANumberNamesTheKey() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        redis().set(keys().services().revision(), "-1");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(reader.discovery()::getServices)
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(keys().services().revision() + " does not hold a revision number");
    }

    @Test
    void aServiceIndexEntryThatIsNotANumberNamesTheKeyAndField() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        redis().hset(keys().services().index(), "orders", "many");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(reader.discovery()::getServices)
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(keys().services().index() + " field orders does not hold a number");
    }

    @Test
    void aConfigWhoseTimestampIsNotANumberIsReportedNotShownAsAbsent() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        redis().hset(keys().config("app").current(), "updatedAt", "yesterday");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(() -> reader.directConfig().get("app"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(keys().config("app").current() + " field updatedAt does not hold a number");
    }

    @Test
    void aConfigWithoutContentIsReportedNotShownAsAbsent() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        redis().hdel(keys().config("app").current(), "content");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(() -> reader.config().get("app"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(keys().config("app").current() + " field content is missing");
    }

    @Test
    void theReconcilesLookAtAConfigWhoseRevisionIsNotANumberNamesTheKeyAndField() {
        // given a config whose stamp's revision another program overwrote with a word
        RedisLodestarClient client = (RedisLodestarClient) clients.connect();
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        String current = keys().config("app").current();
        redis().hset(current, Keys.REVISION_FIELD, "not-a-number");

        // when the reconcile reads the entry's stamp (one HMGET, no script to name the field first): it names both
        assertThatThrownBy(() -> new ConfigReads(client.backend, keys()).stamp("app").toCompletableFuture().join())
                .hasRootCauseInstanceOf(Replies.Corrupt.class)
                .hasMessageContaining(current + " field :revision does not hold a revision number");
    }

    @Test
    void aConfigIndexEntryThatIsNotANumberNamesTheKeyAndField() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        redis().hset(keys().configs().index(), "app", "one");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(reader.config()::list)
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(keys().configs().index() + " field app does not hold a number");
    }

    @Test
    void aConfigIndexWhoseRevisionIsNotANumberNamesTheKey() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        redis().set(keys().configs().revision(), "x");
        LodestarClient reader = clients.connect();

        assertThatThrownBy(reader.config()::list)
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(keys().configs().revision() + " does not hold a revision number");
    }

    @Test
    void aHistoryEntryThatIsNotAnEntryNamesTheKeyAndVersion() {
        LodestarClient client = clients.connect();
        client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        String history = keys().config("app").history();
        redis().del(history);
        redis().xadd(history, new XAddArgs().id("1-0"), Map.of("entry", "{\"version\":\"one\"}"));
        redis().xadd(history, new XAddArgs().id("2-0"), Map.of("not-an-entry", "x"));

        // a version's JSON that is not an entry's, and a stream entry that is not a version
        assertThatThrownBy(() -> client.config().getVersion("app", 1))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(history + " entry 1-0 does not hold a config entry");
        assertThatThrownBy(() -> client.config().history("app"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(history + " entry 2-0 does not hold a config version");
        redis().xdel(history, "2-0");
        assertThatThrownBy(() -> client.config().history("app"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(history + " holds a value that is not a config entry");
    }
}
