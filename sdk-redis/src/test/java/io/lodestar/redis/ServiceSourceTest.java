package io.lodestar.redis;

import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The event stream a service listener builds its state from: an event only when the view's state changes. */
class ServiceSourceTest {
    private final ServiceSource source = new ServiceSource(new Keys(Namespace.of("test")), null);
    private final ServiceInstance one = Clients.instance("orders", "orders-1");

    @Test
    void theExpiryOfAnInstanceTheViewHoldsIsAnnounced() {
        SyncedView.Applied<ServiceSnapshot, ServiceEvent> applied = source.apply("orders", held(4, one),
                new SyncedView.Message(5, Map.of("type", "expired", "id", "orders-1")));

        assertThat(applied.event()).isEqualTo(new InstanceExpired("orders", 5, "orders-1"));
        assertThat(applied.value().instances()).isEmpty();
    }

    @Test
    void theRemovalOfAnInstanceTheViewDoesNotHoldIsNotAnnouncedButMovesTheRevision() {
        for (String type : List.of("expired", "deregistered")) {
            SyncedView.Applied<ServiceSnapshot, ServiceEvent> applied = source.apply("orders", held(4, one),
                    new SyncedView.Message(5, Map.of("type", type, "id", "orders-2")));

            assertThat(applied.event()).as(type).isNull();
            assertThat(applied.value()).isEqualTo(new ServiceSnapshot("orders", 5, List.of(one)));
        }
    }

    @Test
    void aResyncIsAnnouncedOnlyWhenTheInstancesChanged() {
        assertThat(source.resynced("orders", held(4, one), held(9, one))).isNull();
        assertThat(source.resynced("orders", held(4, one), held(9))).isEqualTo(
                new ServiceResynced("orders", 9, new ServiceSnapshot("orders", 9, List.of())));
    }

    private static SyncedView.Versioned<ServiceSnapshot> held(long revision, ServiceInstance... instances) {
        return new SyncedView.Versioned<>(revision, new ServiceSnapshot("orders", revision, List.of(instances)));
    }
}
