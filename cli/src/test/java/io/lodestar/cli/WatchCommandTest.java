package io.lodestar.cli;

import io.lodestar.core.event.InstanceDeregistered;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WatchCommandTest {

    @Test
    void anEvictIsDescribedAsAnEvict() {
        assertThat(WatchCommand.describe(new InstanceDeregistered("orders", 7, "orders-1", true)))
                .isEqualTo("orders: orders-1 evicted, revision 7");
    }

    @Test
    void aDeregistrationIsDescribedAsADeregistration() {
        assertThat(WatchCommand.describe(new InstanceDeregistered("orders", 7, "orders-1", false)))
                .isEqualTo("orders: orders-1 deregistered, revision 7");
    }
}
