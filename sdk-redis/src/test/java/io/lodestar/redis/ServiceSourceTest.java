package io.lodestar.redis;

import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The event stream a service listener builds its state from: an event only when the view's state changes; and a
 * batch of events, applied beside the held list and merged into one snapshot, in instance id order.
 */
class ServiceSourceTest {
    private final ServiceSource source = new ServiceSource(new Keys(Namespace.of("test")), null, null,
                Snapshots.services(Optional.empty(), "test", "redis://test", Runnable::run));
    private final ServiceInstance one = Clients.instance("orders", "orders-1");

    @Test
    void theExpiryOfAnInstanceTheViewHoldsIsAnnounced() {
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = apply(held(4, one), expired(5, "orders-1"));

        assertThat(batch.value().instances()).isEmpty();
        assertThat(batch.events()).containsExactly(new InstanceExpired("orders", 5, "orders-1"));
    }

    @Test
    void theRemovalOfAnInstanceTheViewDoesNotHoldIsNotAnnouncedButMovesTheRevision() {
        for (String type : List.of("expired", "deregistered")) {
            ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = apply(held(4, one),
                    new ViewSource.Message(5, Map.of("type", type, "id", "orders-2")));

            assertThat(batch.value()).as(type).isEqualTo(new ServiceSnapshot("orders", 5, List.of(one)));
            assertThat(batch.events()).as(type).isEmpty();
        }
    }

    @Test
    void aDeregistrationThatSaysItWasAnEvictIsAnnouncedAsEvicted() {
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = apply(held(4, one),
                new ViewSource.Message(5, Map.of("type", "deregistered", "id", "orders-1", "evicted", true)));

        assertThat(batch.value().instances()).isEmpty();
        assertThat(batch.events()).containsExactly(new InstanceDeregistered("orders", 5, "orders-1", true));
    }

    @Test
    void aDeregistrationWithoutTheEvictedFieldAsAnEarlierVersionWritesItIsAnnouncedAsNotEvicted() {
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = apply(held(4, one),
                new ViewSource.Message(5, InstanceReader.event("{\"type\":\"deregistered\",\"rev\":5,"
                        + "\"id\":\"orders-1\",\"digest\":\"9f2c\",\"inc\":\"5f0c\"}")));

        assertThat(batch.events()).containsExactly(new InstanceDeregistered("orders", 5, "orders-1", false));
    }

    @Test
    void aDeregistrationWhoseEvictedIsNotABooleanIsMalformedAndLeavesTheBatchAsItWas() {
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = source.batch("orders", held(4, one));

        assertThatThrownBy(() -> batch.apply(new ViewSource.Message(5, Map.of("type", "deregistered",
                "id", "orders-1", "evicted", "yes")))).hasMessageContaining("evicted is not a boolean");

        assertThat(batch.value().instances()).containsExactly(one);
        assertThat(batch.events()).isEmpty();
    }

    @Test
    void aBatchIsMergedIntoOneSnapshotInIdOrderWithOneEventPerChangeAtItsRevision() {
        ServiceInstance three = Clients.instance("orders", "orders-3");
        ServiceInstance threeMoved = three.toBuilder().port(9090).build();
        ServiceInstance two = Clients.instance("orders", "orders-2");
        ServiceInstance four = Clients.instance("orders", "orders-4");

        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = apply(held(4, one, three),
                registered(5, "registered", two),
                registered(6, "updated", threeMoved),
                new ViewSource.Message(7, Map.of("type", "deregistered", "id", "orders-1")),
                registered(8, "registered", four),
                expired(9, "orders-4"),
                expired(10, "orders-1")); // no longer held: changes nothing a listener knows

        assertThat(batch.value()).isEqualTo(new ServiceSnapshot("orders", 10, List.of(two, threeMoved)));
        assertThat(batch.events()).containsExactly(
                new InstanceRegistered("orders", 5, two),
                new InstanceUpdated("orders", 6, three, threeMoved),
                new InstanceDeregistered("orders", 7, "orders-1"),
                new InstanceRegistered("orders", 8, four),
                new InstanceExpired("orders", 9, "orders-4"));
    }

    @Test
    void aLargeServiceTakesABatchOfChangesAnywhereInItsList() {
        List<ServiceInstance> instances = new ArrayList<>();
        for (int i = 0; i < 1_000; i += 2) {
            instances.add(Clients.instance("orders", String.format("orders-%04d", i)));
        }
        ServiceInstance first = Clients.instance("orders", "orders-0000a");
        ServiceInstance last = Clients.instance("orders", "orders-9999");
        ServiceInstance middle = Clients.instance("orders", "orders-0501");

        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = apply(
                held(1, instances.toArray(ServiceInstance[]::new)),
                registered(2, "registered", last), registered(3, "registered", middle),
                registered(4, "registered", first), expired(5, "orders-0998"));

        List<String> ids = batch.value().instances().stream().map(ServiceInstance::instanceId).toList();
        assertThat(ids).hasSize(502).isSorted().contains("orders-0000a", "orders-0501", "orders-9999")
                .doesNotContain("orders-0998");
        assertThat(batch.events()).hasSize(4);
    }

    @Test
    void anEventThatCannotBeAppliedLeavesTheBatchAsItWas() {
        ServiceInstance two = Clients.instance("orders", "orders-2");
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = source.batch("orders", held(4, one));
        batch.apply(registered(5, "registered", two));

        assertThatThrownBy(() -> batch.apply(new ViewSource.Message(6, Map.of("type", "registered", "id", "orders-1",
                "instance", Map.of("host", List.of("not", "a", "host"))))));
        assertThatThrownBy(() -> batch.apply(new ViewSource.Message(6, Map.of("type", "from-a-newer-client",
                "id", "orders-1")))).hasMessageContaining("unknown event type");

        assertThat(batch.value()).isEqualTo(new ServiceSnapshot("orders", 5, List.of(one, two)));
        assertThat(batch.events()).containsExactly(new InstanceRegistered("orders", 5, two));
    }

    @Test
    void aResyncIsAnnouncedOnlyWhenTheInstancesChanged() {
        assertThat(source.resynced("orders", held(4, one), held(9, one))).isNull();
        assertThat(source.resynced("orders", held(4, one), held(9))).isEqualTo(
                new ServiceResynced("orders", 9, new ServiceSnapshot("orders", 9, List.of())));
    }

    @Test
    void anInstanceRegisteredAgainWhileHeldIsAnUpdateIfItChangedAndNothingIfNot() {
        ServiceInstance moved = one.toBuilder().port(9090).build();

        ViewSource.Batch<ServiceSnapshot, ServiceEvent> same = apply(held(4, one), registered(5, "registered", one));
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> changed = apply(held(4, one),
                registered(5, "registered", moved));

        assertThat(same.events()).as("its owner registered it again after Redis lost it").isEmpty();
        assertThat(changed.events()).containsExactly(new InstanceUpdated("orders", 5, one, moved));
    }

    @Test
    void anInstanceRedisLostIsKeptForTheOutageGracePlusItsTtl() {
        ServiceInstance two = Clients.instance("orders", "orders-2").toBuilder().ttl(Duration.ofSeconds(3)).build();
        ServiceInstance persistent = Clients.persistent("orders", "orders-3");
        ServiceSnapshot held = new ServiceSnapshot("orders", 9, List.of(one, two, persistent));
        ServiceSnapshot loaded = new ServiceSnapshot("orders", 1, List.of(one));

        Map<String, Duration> lost = source.lost("orders", held, loaded);

        assertThat(lost).containsOnly(Map.entry("orders-2", Sweeper.RECONNECT_ALLOWANCE.plusSeconds(3)),
                Map.entry("orders-3", Sweeper.RECONNECT_ALLOWANCE));
        assertThat(source.withKept("orders", loaded, held, Set.of("orders-2")).instances())
                .containsExactly(one, two);
    }

    @Test
    void theIndexKeepsALostServiceAsLongAsItsLongestLivedInstanceOrTheDefaultTtlWhenItWasNeverRead() {
        ServiceInstance two = Clients.instance("orders", "orders-2").toBuilder().ttl(Duration.ofSeconds(90)).build();
        ServiceInstance persistent = Clients.persistent("orders", "orders-3");

        assertThat(ServiceSource.keptFor(new ServiceSnapshot("orders", 9, List.of(one, two, persistent))))
                .isEqualTo(Sweeper.RECONNECT_ALLOWANCE.plusSeconds(90));
        assertThat(ServiceSource.keptFor(new ServiceSnapshot("orders", 9, List.of(persistent))))
                .isEqualTo(Sweeper.RECONNECT_ALLOWANCE);
        assertThat(ServiceSource.keptFor(null)).isEqualTo(Sweeper.RECONNECT_ALLOWANCE.plus(Validation.DEFAULT_TTL));
    }

    @Test
    void aKeptInstanceWhoseTimeIsUpExpiresWithOneEvent() {
        ServiceInstance two = Clients.instance("orders", "orders-2");

        ViewSource.Dropped<ServiceSnapshot, ServiceEvent> dropped = source.drop("orders", held(3, one, two),
                List.of("orders-2"));

        assertThat(dropped.value().instances()).containsExactly(one);
        assertThat(dropped.events()).containsExactly(new InstanceExpired("orders", 3, "orders-2"));
    }

    private ViewSource.Batch<ServiceSnapshot, ServiceEvent> apply(SyncedView.Versioned<ServiceSnapshot> held,
                                                                  ViewSource.Message... messages) {
        ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch = source.batch("orders", held);
        for (ViewSource.Message message : messages) {
            batch.apply(message);
        }
        return batch;
    }

    private static ViewSource.Message registered(long revision, String type, ServiceInstance instance) {
        return new ViewSource.Message(revision, Map.of("type", type, "id", instance.instanceId(),
                "instance", new InstanceReader.Nested(Json.instance(instance))));
    }

    private static ViewSource.Message expired(long revision, String instanceId) {
        return new ViewSource.Message(revision, Map.of("type", "expired", "id", instanceId));
    }

    private static SyncedView.Versioned<ServiceSnapshot> held(long revision, ServiceInstance... instances) {
        return new SyncedView.Versioned<>(revision, new ServiceSnapshot("orders", revision, List.of(instances)));
    }
}
