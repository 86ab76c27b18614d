package io.lodestar.redis;

import com.sun.management.ThreadMXBean;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A read of a held service or config allocates nothing (JMH's -prof gc measures it too; this guards it in every
 * build). Counted with the JVM's per-thread allocation counter, not timed.
 */
class ViewReadAllocationIT extends NamespaceTest {
    private static final int READS = 200_000;

    /** Reads are kept here, so the JIT cannot prove them unused and remove an allocation the caller would pay. */
    private static volatile Object sink;

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void readingAHeldServiceOrConfigAllocatesNothing() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        client.config().set("limits", "max: 1", ConfigFormat.YAML);
        client.discovery().getInstances("orders");
        client.config().get("limits");
        readBoth(client, READS); // warm up: let the JIT compile the read path

        long before = allocatedBytes();
        int seen = readBoth(client, READS);
        long allocated = allocatedBytes() - before;

        assertThat(seen).isEqualTo(2 * READS);
        assertThat((double) allocated / (2 * READS)).as("bytes per read").isLessThan(1.0);
    }

    private static int readBoth(LodestarClient client, int times) {
        int seen = 0;
        for (int i = 0; i < times; i++) {
            List<ServiceInstance> instances = client.discovery().getInstances("orders");
            sink = instances;
            seen += instances.size();
            Optional<ConfigEntry> limits = client.config().get("limits");
            sink = limits;
            seen += limits.isPresent() ? 1 : 0;
        }
        return seen;
    }

    private static long allocatedBytes() {
        return ((ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
