package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.ScriptException;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Keys another program corrupted: a script stops before its first write (Redis does not roll back), says which
 * key is wrong, and expiry goes on everywhere it still can.
 */
class CorruptKeysIT extends NamespaceTest {

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aWriteOnARevisionThatIsNotANumberWritesNothingAndNamesTheKey() {
        LodestarClient client = clients.connect();
        Keys.ServiceKeys orders = keys().service("orders");
        redis().set(orders.revision(), "not-a-number");

        assertThatThrownBy(() -> client.registry().register(instance("orders", "orders-1")))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.revision() + " does not hold a revision number");

        assertThat(redis().exists(orders.instances(), orders.deadlines())).as("keys written").isZero();
    }

    @Test
    void aWriteOnAKeyOfAnotherTypeNamesTheKeyAndItsType() {
        LodestarClient client = clients.connect();
        Keys.ServiceKeys orders = keys().service("orders");
        redis().set(orders.instances(), "a string");

        assertThatThrownBy(() -> client.registry().register(instance("orders", "orders-1")))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining(orders.instances() + " is a string where Lodestar keeps a hash");

        assertThat(redis().exists(orders.deadlines(), orders.revision())).as("keys written").isZero();
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

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(sweeper.directDiscovery().getInstances("orders")).isEmpty());
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

    /** Registers an ephemeral instance with a TTL of 1 s that nobody renews. */
    private void registerAndAbandon(ServiceInstance instance) {
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false));
        owner.registry().register(instance.toBuilder().ttl(Duration.ofSeconds(1)).build());
        owner.close();
    }
}
