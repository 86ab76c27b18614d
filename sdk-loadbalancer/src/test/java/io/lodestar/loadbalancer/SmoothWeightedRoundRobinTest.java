package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static io.lodestar.loadbalancer.Fixtures.sequence;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SmoothWeightedRoundRobinTest {
    @Test
    void weightsFiveOneOneGiveNginxsSequence() {
        // given nginx's documented example: a=5, b=1, c=1
        List<ServiceInstance> instances = List.of(instance("a", 5), instance("b", 1), instance("c", 1));
        LoadBalancer balancer = LoadBalancers.weightedRoundRobin().seed(0).build();

        // when choosing two full cycles
        String order = sequence(14, () -> balancer.choose(instances));

        // then the order is a a b a c a a, twice
        assertThat(order).isEqualTo("aabacaa" + "aabacaa");
    }

    @Test
    void eachCycleHoldsEveryInstanceExactlyWeightTimes() {
        // given weights 1..5 (cycle of 15)
        List<ServiceInstance> instances = List.of(instance("a", 100), instance("b", 200), instance("c", 300),
                instance("d", 400), instance("e", 500));
        LoadBalancer balancer = LoadBalancers.weightedRoundRobin().seed(0).build();

        // when choosing 1 000 cycles
        Map<String, Long> counts = count(15_000, () -> balancer.choose(instances));

        // then the counts are exact
        assertThat(counts).isEqualTo(Map.of("a", 1_000L, "b", 2_000L, "c", 3_000L, "d", 4_000L, "e", 5_000L));
    }

    @Test
    void heavyInstanceTurnsAreSpreadOut() {
        // given a=3, b=2
        List<ServiceInstance> instances = List.of(instance("a", 3), instance("b", 2));
        LoadBalancer balancer = LoadBalancers.weightedRoundRobin().seed(0).build();

        // when / then the smooth order interleaves (a plain weighted round robin would say a a a b b)
        assertThat(sequence(5, () -> balancer.choose(instances))).isEqualTo("ababa");
    }

    @Test
    void weightZeroIsNeverChosen() {
        // given an instance of weight 0
        List<ServiceInstance> instances = List.of(instance("a", 2), instance("zero", 0), instance("b", 1));
        LoadBalancer balancer = LoadBalancers.weightedRoundRobin().seed(0).build();

        // when / then
        assertThat(count(3_000, () -> balancer.choose(instances))).doesNotContainKey("zero")
                .containsEntry("a", 2_000L).containsEntry("b", 1_000L);
    }

    @Test
    void defaultWeightsReduceToPlainRoundRobin() {
        // given three instances with the default weight of 100
        List<ServiceInstance> instances = List.of(instance("a", 100), instance("b", 100), instance("c", 100));
        LoadBalancer balancer = LoadBalancers.weightedRoundRobin().seed(0).build();

        // when / then the cycle is just a b c
        assertThat(sequence(6, () -> balancer.choose(instances))).isEqualTo("abcabc");
    }

    @Test
    void hugeCyclesAreScaledDownKeepingTheShares() {
        // given 50 instances with coprime-ish weights whose exact cycle would be far above the limit
        List<ServiceInstance> instances = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < 50; i++) {
            int weight = 9_000 + 17 * i + (i % 2);
            instances.add(instance("i" + i, weight));
            total += weight;
        }
        ServiceInstance[] candidates = instances.toArray(ServiceInstance[]::new);
        long[] weights = instances.stream().mapToLong(ServiceInstance::weight).toArray();
        assertThat(total).isGreaterThan(SmoothWeightedRoundRobin.MAX_CYCLE);

        // when the cycle is prepared
        SmoothWeightedRoundRobin picker = (SmoothWeightedRoundRobin) SmoothWeightedRoundRobin.prepare(candidates,
                weights, new AtomicLong());

        // then it stays within the limit and each share is within 1 % (relative) of the exact one
        assertThat((long) picker.cycleLength()).isLessThanOrEqualTo(SmoothWeightedRoundRobin.limit(50) + 50);
        Map<String, Long> counts = count(picker.cycleLength(), () -> picker.pick(null));
        for (ServiceInstance instance : instances) {
            double exact = (double) instance.weight() / total;
            double actual = (double) counts.get(instance.instanceId()) / picker.cycleLength();
            assertThat(actual).as(instance.instanceId()).isCloseTo(exact, within(exact * 0.01));
        }
    }
}
