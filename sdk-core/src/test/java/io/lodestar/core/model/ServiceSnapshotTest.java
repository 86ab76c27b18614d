package io.lodestar.core.model;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServiceSnapshotTest {
    private static final ServiceInstance ORDERS_1 =
            ServiceInstance.builder("orders", "orders-1").host("10.0.0.1").port(8080).build();

    @Test
    void emptyIsRevisionZeroWithoutInstances() {
        ServiceSnapshot snapshot = ServiceSnapshot.empty("orders");

        assertThat(snapshot.serviceId()).isEqualTo("orders");
        assertThat(snapshot.revision()).isZero();
        assertThat(snapshot.instances()).isEmpty();
    }

    @Test
    void copiesTheInstances() {
        List<ServiceInstance> source = new ArrayList<>(List.of(ORDERS_1));
        ServiceSnapshot snapshot = new ServiceSnapshot("orders", 7, source);

        source.clear();

        assertThat(snapshot.instances()).containsExactly(ORDERS_1);
    }

    @Test
    void instancesCannotBeModified() {
        ServiceSnapshot snapshot = new ServiceSnapshot("orders", 7, List.of(ORDERS_1));

        assertThatThrownBy(() -> snapshot.instances().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void requiresAServiceId() {
        assertThatThrownBy(() -> new ServiceSnapshot(null, 0, List.of()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("serviceId");
    }
}
