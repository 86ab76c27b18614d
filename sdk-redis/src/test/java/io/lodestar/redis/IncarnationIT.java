package io.lodestar.redis;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.persistent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A topic's revision counter can go back without any connection dropping: its keys were lost (deleted, a restore
 * from an old backup, a failover to a replica that never had them) and writers go on from 1. The events of the new
 * keys carry another incarnation id than the one the view holds, so the view re-reads the topic instead of taking
 * them for old duplicates and holding a state Redis no longer has. Reconcile is off, and no connection drops, so
 * only the incarnation can make the view converge.
 */
class IncarnationIT extends NamespaceTest {
    private static final Duration CONVERGED = Duration.ofSeconds(5);

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aViewWhoseServiceKeysWereLostAndWrittenAgainConvergesToTheNewKeys() {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect();
        for (int i = 1; i <= 5; i++) {
            writer.registry().register(persistentOrder("old-" + i));
        }
        assertThat(reader.discovery().getInstances("orders")).hasSize(5); // the view holds revision 5

        try (LogCapture log = LogCapture.start()) {
            deleteNamespaceKeys();
            writer.registry().register(persistentOrder("new-1")); // revision 1 of new keys
            writer.registry().register(persistentOrder("new-2")); // revision 2

            // the lost instances are kept for their owners to register them again (persistent ones: the grace only)
            await().atMost(CONVERGED).untilAsserted(() -> assertThat(reader.discovery().getInstances("orders"))
                    .extracting(ServiceInstance::instanceId)
                    .containsExactly("new-1", "new-2", "old-1", "old-2", "old-3", "old-4", "old-5"));
            await().atMost(Sweeper.RECONNECT_ALLOWANCE.plus(CONVERGED)).untilAsserted(() ->
                    assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                            .containsExactly("new-1", "new-2"));
            assertThat(reader.serviceView.incarnations.sum()).as("told by the incarnation").isPositive();
            // lost keys are a normal event after a restart without data (issue 34): said at INFO, the id quoted once
            assertThat(log.lines("INFO", "'orders': revision", "Redis lost or replaced them")).isNotEmpty();
            assertThat(log.lines("WARN", "incarnation")).isEmpty();
        }
    }

    @Test
    void theNamespaceIndexesOfAViewWhoseKeysWereLostKeepTheirMembersAndAddTheNewKeys() {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect();
        for (String service : List.of("orders", "payments", "stock")) {
            writer.registry().register(persistent(service, service + "-1"));
        }
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().set("db", "url=x", ConfigFormat.PROPERTIES);
        assertThat(reader.discovery().getServices()).hasSize(3); // the index view holds revision 3
        assertThat(reader.config().list()).hasSize(2);

        deleteNamespaceKeys();
        writer.registry().register(persistent("billing", "billing-1")); // index revision 1 of new keys
        writer.config().set("flags", "on=true", ConfigFormat.PROPERTIES);

        // the view keeps a member until written again or really removed: a lost service still exists for it;
        // list() asks Redis
        await().atMost(CONVERGED).untilAsserted(() -> {
            assertThat(reader.discovery().getServices()).containsExactly("billing", "orders", "payments", "stock");
            assertThat(reader.config().list()).containsExactly("flags");
        });
        assertThat(reader.indexView.incarnations.sum()).as("told by the incarnation").isPositive();
    }

    @Test
    void aViewWhoseConfigKeysWereLostAndWrittenAgainConvergesAndTellsItsListener() {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect();
        for (int v = 1; v <= 3; v++) {
            writer.config().set("app", "v=" + v, ConfigFormat.PROPERTIES);
        }
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", events::add);
        assertThat(reader.config().get("app")).map(ConfigEntry::version).hasValue(3L);

        deleteNamespaceKeys();
        writer.config().set("app", "lost=yes", ConfigFormat.PROPERTIES); // version 1 of new keys

        await().atMost(CONVERGED).untilAsserted(() -> {
            assertThat(reader.config().get("app")).map(ConfigEntry::content).hasValue("lost=yes");
            assertThat(events).last().isInstanceOfSatisfying(ConfigChanged.class,
                    changed -> assertThat(changed.entry().content()).isEqualTo("lost=yes"));
        });
        assertThat(reader.views().get("config").incarnations.sum()).as("told by the incarnation").isPositive();
    }

    private static ServiceInstance persistentOrder(String id) {
        return persistent("orders", id);
    }

    /** What a data loss leaves: none of the namespace's keys (its services' and configs' included). */
    private void deleteNamespaceKeys() {
        List<String> lost = new ArrayList<>();
        for (String pattern : List.of(Keys.PREFIX + "{" + clients.namespace() + "}:*",
                Keys.PREFIX + "{" + clients.namespace() + ":*")) {
            ScanIterator.scan(redis(), ScanArgs.Builder.matches(pattern).limit(1000)).forEachRemaining(lost::add);
        }
        assertThat(lost).isNotEmpty();
        redis().del(lost.toArray(String[]::new));
    }
}
