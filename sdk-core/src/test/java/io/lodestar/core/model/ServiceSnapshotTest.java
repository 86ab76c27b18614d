package io.lodestar.core.model;

import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
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
    void rejectsNullsWithTheFieldsTheyBreak() {
        assertThatThrownBy(() -> new ServiceSnapshot(null, 0, null))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("serviceId must be 1-128 characters")
                .hasMessageContaining("but was null; instances must be non-null, but was null");
    }

    @Test
    void rejectsAnInvalidServiceId() {
        assertThatThrownBy(() -> new ServiceSnapshot("no such id", 1, List.of()))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("serviceId must be")
                .hasMessageEndingWith("but was 'no such id'");
    }

    @Test
    void rejectsANegativeRevision() {
        assertThatThrownBy(() -> new ServiceSnapshot("orders", -1, List.of()))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("revision must be between 0 and 9223372036854775807, but was -1");
    }

    @Test
    void rejectsANullInstanceNamingItsPlace() {
        assertThatThrownBy(() -> new ServiceSnapshot("orders", 1, Arrays.asList(ORDERS_1, null)))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("instances[1] must be non-null, but was null");
    }

    @Test
    void emptyRejectsAnInvalidServiceId() {
        assertThatThrownBy(() -> ServiceSnapshot.empty(null))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("serviceId must be");
    }
}
