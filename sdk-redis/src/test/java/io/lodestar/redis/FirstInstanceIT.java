package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.util.List;

import static io.lodestar.redis.Clients.instance;
import static io.lodestar.redis.Clients.persistent;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * register_instance.lua tells its caller when an instance is its service's first, the one registration that
 * reports the service to the namespace index (a call of its own): it counts the service's instances only when the
 * due entry does not already prove an ephemeral one (an entry filed in the future, as the sweep leaves it), so a
 * registration into a busy service skips the count (issue 27), and a service left empty, whose entry is due until
 * the sweep looks, still counts.
 */
class FirstInstanceIT extends NamespaceTest {

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aNewServicesFirstInstanceIsItsFirst() {
        assertThat(first(instance("orders", "orders-1"))).isTrue();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aSecondInstanceIsNotTheFirstWhetherTheDueEntryIsDueOrFiledInTheFuture() {
        // given a service whose first registration made its due entry due now (the sweep has not looked)
        first(instance("orders", "orders-1"));
        assertThat(first(instance("orders", "orders-2"))).as("entry due").isFalse();

        // when the sweep has filed the entry at the earliest deadline
        settleDue();

        // then a new instance is not the first either
        assertThat(first(instance("orders", "orders-3"))).as("entry in the future").isFalse();
        assertThat(instanceIdsInRedis("orders")).hasSize(3);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aServiceLeftEmptyBeforeTheSweepLooksCountsItsNextInstanceAsTheFirst() {
        // given a service whose two instances were deregistered after the sweep filed its entry in the future
        first(instance("orders", "orders-1"));
        first(instance("orders", "orders-2"));
        settleDue();
        deregister("orders-1");
        deregister("orders-2");

        // then the next registration is the service's first (the last deregistration made the entry due now)
        assertThat(first(instance("orders", "orders-3"))).isTrue();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aServiceWithOnlyAPersistentInstanceHasNoDueEntryAndItsNextInstanceIsNotTheFirst() {
        first(persistent("orders", "fixed"));
        redis().zrem(keys().service("orders").due(), keys().service("orders").instances()); // as the sweep leaves it

        assertThat(first(instance("orders", "orders-1"))).isFalse();
        assertThat(first(persistent("billing", "fixed"))).as("a persistent first instance").isTrue();
    }

    /** Registers by the script, as a client does, and answers whether the script called it the service's first. */
    private boolean first(ServiceInstance instance) {
        List<Object> reply = redis().eval(Scripts.REGISTER_INSTANCE.body(), ScriptOutputType.MULTI,
                keys().service(instance.serviceId()).all(), instance.instanceId(), Json.instance(instance),
                Long.toString(instance.ttl().toMillis()), "register", "0123456789abcdef");
        assertThat(reply.get(1)).isEqualTo("registered");
        return (Long) reply.get(3) == 1L;
    }

    private void deregister(String instanceId) {
        redis().eval(Scripts.DEREGISTER_INSTANCE.body(), ScriptOutputType.MULTI, keys().service("orders").all(),
                instanceId, "60000");
    }

    /** Files the service's due entry at its earliest deadline, as the sweep leaves it. */
    private void settleDue() {
        Keys.ServiceKeys orders = keys().service("orders");
        var earliest = redis().zrangeWithScores(orders.deadlines(), 0, 0).get(0);
        redis().zadd(orders.due(), earliest.getScore(), orders.instances());
    }
}
