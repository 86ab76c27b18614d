package io.lodestar.redis;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lodestar.core.ConflictException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRule;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.persistent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A service or config that is gone for good can be purged: every key it left behind goes, while views that held it
 * keep showing it empty and bring nothing back. Purging something that still exists is refused and changes nothing.
 * Reconcile is off (see {@link Clients}), so only the purge's own event and the incarnation keep views right.
 */
abstract class PurgeContract extends NamespaceTest {
    private static final Duration CONVERGED = Duration.ofSeconds(5);

    /** A plain connection to the test's Redis, to see which keys are left. */
    abstract RedisClusterCommands<String, String> raw();

    @Test
    void purgingAServiceWithInstancesIsRefusedAndChangesNothing() {
        LodestarClient writer = clients.connect();
        writer.registry().register(persistent("orders", "orders-1"));
        writer.registry().register(persistent("orders", "orders-2"));

        assertThatThrownBy(() -> writer.registry().purge("orders")).isInstanceOfSatisfying(ConflictException.class,
                conflict -> {
                    assertThat(conflict.id()).isEqualTo("orders");
                    assertThat(conflict.currentVersion()).isEqualTo(2);
                }).hasMessageContaining("Cannot purge service 'orders': it has 2 instances (revision 2)");

        assertThat(writer.discovery().getInstances("orders")).hasSize(2);
        Keys.ServiceKeys orders = keys().service("orders");
        assertThat(raw().exists(orders.instances(), orders.deadlines(), orders.tombstones()))
                .isEqualTo(1); // instances, with the service's stamp
    }

    @Test
    void aPurgedServiceLeavesNoKeysAndViewsHoldingItStayEmptyUntilItIsRegisteredAgain() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        writer.registry().register(persistent("orders", "orders-1"));
        writer.registry().register(persistent("orders", "orders-2"));
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);
        writer.registry().deregister("orders", "orders-1");
        writer.registry().deregister("orders", "orders-2");
        await().atMost(CONVERGED).until(() -> reader.discovery().getInstances("orders").isEmpty());
        int eventsBefore = events.size();

        assertThat(writer.registry().purge("orders")).isTrue();

        Keys.ServiceKeys orders = keys().service("orders");
        // only the tombstones of the two deregistrations stay, and they expire with the last of them
        assertThat(raw().exists(orders.all())).isEqualTo(1);
        assertThat(raw().pttl(orders.tombstones())).isPositive().isLessThanOrEqualTo(60_000);
        assertThat(raw().hexists(keys().services().index(), "orders")).isFalse();
        assertThat(writer.registry().purge("orders")).as("nothing left to purge").isFalse();
        await().atMost(CONVERGED).untilAsserted(() -> assertThat(reader.discovery().getSnapshot("orders").revision())
                .as("the purge's event made the view re-read: empty at revision 0").isZero());

        writer.registry().register(persistent("orders", "orders-3")); // revision 1 of new keys
        await().atMost(CONVERGED).untilAsserted(() -> {
            assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactly("orders-3");
            assertThat(reader.discovery().getServices()).containsExactly("orders");
        });
        assertThat(events.subList(eventsBefore, events.size())).as("nothing but the new instance")
                .allSatisfy(event -> assertThat(event.toString()).contains("orders-3"));
    }

    @Test
    void aPurgedServiceRegisteredAgainKeepsItsTombstonesAsALiveServiceDoes() {
        // given a service purged with a tombstone still running: its tombstones key expires with it
        LodestarClient writer = clients.connect();
        writer.registry().register(persistent("orders", "orders-1"));
        writer.registry().deregister("orders", "orders-1");
        assertThat(writer.registry().purge("orders")).isTrue();
        String tombstones = keys().service("orders").tombstones();
        assertThat(raw().pttl(tombstones)).as("expiry after the purge").isPositive();

        // when it is registered again, and an instance deregistered
        writer.registry().register(persistent("orders", "orders-2"));
        writer.registry().deregister("orders", "orders-2");

        // then its tombstones no longer expire as a whole (no deregistration of a live service looks at their
        // expiry): orders-2's tombstone lasts its own time, not what was left of the purged service's
        assertThat(raw().pttl(tombstones)).as("expiry after registering again").isEqualTo(-1);
        assertThat(raw().zscore(tombstones, "orders-2")).isNotNull();
    }

    @Test
    void aPurgeKeepsTheTombstoneOfAnEvictedInstanceSoItsOwnersRenewalsCannotBringItBack() {
        LodestarClient owner = clients.connect();
        LodestarClient operator = clients.connect();
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.1").port(8080)
                .ttl(Duration.ofSeconds(1)).build()); // renewed every third of a second
        operator.registry().evict("orders", "orders-1");

        assertThat(operator.registry().purge("orders")).isTrue();

        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> raw().hlen(keys().service("orders").instances()) == 0);
        assertThat(operator.discovery().getInstances("orders")).isEmpty();
    }

    @Test
    void purgingAConfigThatExistsIsRefusedAndChangesNothing() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);

        assertThatThrownBy(() -> writer.config().purge("app")).isInstanceOfSatisfying(ConflictException.class,
                conflict -> {
                    assertThat(conflict.id()).isEqualTo("app");
                    assertThat(conflict.currentVersion()).isEqualTo(2);
                }).hasMessageContaining("Cannot purge config 'app': it exists (version 2); remove it first");

        assertThat(writer.config().history("app")).hasSize(2);
        assertThat(writer.config().get("app")).map(ConfigEntry::content).hasValue("a=2");
    }

    @Test
    void aPurgedConfigLeavesNoKeysAndViewsHoldingItStayAbsentUntilItIsSetAgain() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        for (int v = 1; v <= 3; v++) {
            writer.config().set("app", "v=" + v, ConfigFormat.PROPERTIES);
        }
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", events::add);
        writer.config().remove("app"); // version 4
        await().atMost(CONVERGED).until(() -> reader.config().get("app").isEmpty());
        int eventsBefore = events.size();

        assertThat(writer.config().purge("app")).isTrue();

        assertThat(raw().exists(keys().config("app").all())).isZero();
        assertThat(raw().hexists(keys().configs().index(), "app")).isFalse();
        assertThat(writer.config().history("app")).isEmpty();
        assertThat(writer.config().purge("app")).as("nothing left to purge").isFalse();

        writer.config().set("app", "fresh=1", ConfigFormat.PROPERTIES); // version 1 of new keys
        await().atMost(CONVERGED).untilAsserted(() -> {
            assertThat(reader.config().get("app")).hasValueSatisfying(entry -> {
                assertThat(entry.version()).isEqualTo(1);
                assertThat(entry.content()).isEqualTo("fresh=1");
            });
            assertThat(reader.config().list()).containsExactly("app");
            assertThat(events.subList(eventsBefore, events.size())).singleElement()
                    .isInstanceOfSatisfying(ConfigChanged.class,
                            changed -> assertThat(changed.entry().content()).isEqualTo("fresh=1"));
        });
        assertThat(writer.config().history("app")).extracting(ConfigEntry::version).containsExactly(1L);
    }

    @Test
    void aViewHoldingAPurgedConfigsGrayReleaseDropsItAndTheConfigSetAgainIsNotGray() {
        // given a config with a gray release that an instance in its gray set holds, removed (a release outlives a
        // remove, applying to nobody while the config is absent)
        LodestarClient writer = clients.connect();
        LodestarClient eu1 = clients.connect(
                options -> options.identity(new InstanceIdentity("app-eu-1", Map.of("zone", "eu-1"))));
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, GrayRule.metadata("zone", "eu-1"));
        await().atMost(CONVERGED).untilAsserted(() -> assertThat(eu1.config().get("app"))
                .map(ConfigEntry::content).hasValue("a=gray"));
        writer.config().remove("app");
        await().atMost(CONVERGED).until(() -> eu1.config().get("app").isEmpty());

        // when it is purged and set again: version 1 of new keys, the version the old release was based on
        assertThat(writer.config().purge("app")).isTrue();
        writer.config().set("app", "fresh=1", ConfigFormat.PROPERTIES);

        // then the view dropped the release on the purge's event on the gray channel: the config is not gray for it
        assertThat(writer.config().gray("app")).isEmpty();
        await().atMost(CONVERGED).untilAsserted(() -> assertThat(eu1.config().get("app"))
                .hasValueSatisfying(entry -> {
                    assertThat(entry.version()).isEqualTo(1);
                    assertThat(entry.content()).isEqualTo("fresh=1");
                }));
    }
}
