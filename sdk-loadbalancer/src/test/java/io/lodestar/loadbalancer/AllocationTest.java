package io.lodestar.loadbalancer;

import com.sun.management.ThreadMXBean;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.lodestar.loadbalancer.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The hot path allocates nothing: measured with the JVM's per-thread allocation counter over many calls. Any
 * allocation per call (an iterator, a boxed value, a filtered list) would show as at least 16 bytes a call.
 */
class AllocationTest {
    private static final int CALLS = 200_000;

    @Test
    void chooseAllocatesNothingForAnyStrategyWithSelectorsAndCanaries() {
        ThreadMXBean threads = threadBean();
        List<ServiceInstance> instances = List.of(instance("a", 100, "zone", "eu-1"),
                instance("b", 300, "zone", "eu-1"), instance("c", 0, "zone", "eu-1"),
                instance("d", 200, InstanceStatus.DOWN, "zone", "eu-1"), instance("e", 50, "zone", "eu-2"),
                instance("f", 70, "zone", "eu-1", "canary", "true"));
        RequestContext context = RequestContext.of(Map.of("user", "alice"));
        for (Strategy strategy : Strategy.values()) {
            for (boolean seeded : new boolean[] {false, true}) {
                // given a balancer with selectors, a canary split and protection, and the list already prepared
                LoadBalancers.Builder builder = LoadBalancers.builder(strategy)
                        .selector(Selectors.zonePreference("eu-1"))
                        .selector(Selectors.metadataPresent("zone"))
                        .canary(CanaryRouting.byMetadata().percent(10).stickyBy("session"))
                        .protection(ProtectionPolicy.defaults());
                if (seeded) {
                    builder.seed(1);
                }
                if (strategy.weighted()) {
                    builder.slowStart(Duration.ofSeconds(1));
                }
                LoadBalancer balancer = builder.build();
                warmUp(balancer, instances, context);

                // when choosing many times
                long before = threads.getCurrentThreadAllocatedBytes();
                long checksum = 0;
                for (int i = 0; i < CALLS; i++) {
                    checksum += balancer.choose(instances, context).port();
                }
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;

                // then (next to nothing for the measurement itself) no bytes were allocated
                assertThat(checksum).isPositive();
                assertThat(allocated).as("%s seeded=%s: bytes for %d calls", strategy, seeded, CALLS)
                        .isLessThan(CALLS / 10);
            }
        }
    }

    private static void warmUp(LoadBalancer balancer, List<ServiceInstance> instances, RequestContext context) {
        for (int i = 0; i < 50_000; i++) {
            balancer.choose(instances, context);
            balancer.choose(instances);
        }
    }

    private static ThreadMXBean threadBean() {
        var bean = ManagementFactory.getThreadMXBean(); // java.lang.management's, without the allocation counter
        assumeThat(bean).isInstanceOf(ThreadMXBean.class);
        ThreadMXBean threads = (ThreadMXBean) bean;
        assumeThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        return threads;
    }
}
