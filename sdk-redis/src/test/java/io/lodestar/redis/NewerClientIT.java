package io.lodestar.redis;

import io.lodestar.core.InstanceFilter;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A newer client shares the namespace and writes what this version does not know (a new status, a new event
 * type). A view keeps serving the service, counts what it could not apply and re-reads the topic at once, so it
 * converges without waiting for the next event or the periodic reconcile (off here).
 */
class NewerClientIT extends NamespaceTest {
    private static final Duration OFF = Duration.ofHours(1);
    private static final Duration BOUND = Duration.ofSeconds(10);

    private Keys.ServiceKeys orders;

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @BeforeEach
    void connect() {
        orders = keys().service("orders");
    }

    @Test
    void anInstanceWithAStatusFromANewerClientReadsAsUnknownAndIsNeverChosen() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));

        // a newer client's instance, as its register script would leave it
        String json = Json.instance(instance("orders", "orders-2")).replace("\"UP\"", "\"DRAINING\"");
        redis().hset(orders.instances(), "orders-2", json.substring(0, json.length() - 1) + ",\"registeredAt\":1}");
        redis().hincrby(orders.instances(), Keys.REVISION_FIELD, 1);
        LodestarClient reader = clients.connect(options -> options.reconcileInterval(OFF));

        assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::status)
                .containsExactly(InstanceStatus.UP, InstanceStatus.UNKNOWN);
        assertThat(reader.discovery().getInstances("orders", InstanceFilter.UP))
                .extracting(ServiceInstance::instanceId).containsExactly("orders-1");
        assertThat(reader.directDiscovery().getInstance("orders", "orders-2")).hasValueSatisfying(instance ->
                assertThat(instance.status()).isEqualTo(InstanceStatus.UNKNOWN));
    }

    @Test
    void anEventThisVersionCannotApplyMakesTheViewRereadTheTopicAtOnce() {
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("orders", "orders-1"));
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options -> options.reconcileInterval(OFF));
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);

        // a newer client's write: the state changes, and its event has a type this version does not know
        String json = Json.instance(instance("orders", "orders-2"));
        redis().hset(orders.instances(), "orders-2", json.substring(0, json.length() - 1) + ",\"registeredAt\":1}");
        long revision = redis().hincrby(orders.instances(), Keys.REVISION_FIELD, 1);
        redis().spublish(orders.channel(), "{\"type\":\"joined-v2\",\"rev\":" + revision + ",\"id\":\"orders-2\"}");

        await().atMost(BOUND).untilAsserted(() -> assertThat(reader.discovery().getInstances("orders"))
                .extracting(ServiceInstance::instanceId).containsExactly("orders-1", "orders-2"));
        assertThat(reader.serviceView.rejected.sum()).isEqualTo(1);
    }

    @Test
    void onlyANewerClientMayWriteAStatusThisVersionDoesNotKnow() {
        LodestarClient writer = clients.connect();
        ServiceInstance unknown = instance("orders", "orders-1").toBuilder().status(InstanceStatus.UNKNOWN).build();

        assertThatThrownBy(() -> writer.registry().register(unknown)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("status must be UP, DOWN, OUT_OF_SERVICE or STARTING");
        writer.registry().register(instance("orders", "orders-1"));
        assertThatThrownBy(() -> writer.registry().setStatus("orders", "orders-1", InstanceStatus.UNKNOWN))
                .isInstanceOf(InvalidArgumentException.class);
    }
}
