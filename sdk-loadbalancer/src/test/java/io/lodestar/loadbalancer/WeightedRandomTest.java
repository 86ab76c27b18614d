package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static io.lodestar.loadbalancer.Fixtures.chiSquare;
import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static io.lodestar.loadbalancer.Fixtures.weightsOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WeightedRandomTest {
    /** Chi-square critical value for 3 degrees of freedom at significance 0.001. */
    private static final double CRITICAL_DF3 = 16.266;

    @Test
    void aliasTableGivesEachInstanceExactlyItsWeightShare() {
        // given weights that do not divide evenly
        long[] weights = {1, 7, 3, 10_000, 42};
        ServiceInstance[] candidates = new ServiceInstance[weights.length];
        for (int i = 0; i < weights.length; i++) {
            candidates[i] = instance("i" + i, (int) weights[i]);
        }

        // when the alias table is built
        WeightedRandom table = (WeightedRandom) WeightedRandom.prepare(candidates, weights);

        // then each instance's implied probability, in units of 1 / (n * total), is exactly n * weight
        long[] units = table.impliedUnits();
        for (int i = 0; i < weights.length; i++) {
            assertThat(units[i]).as("units of i%d", i).isEqualTo(weights[i] * weights.length);
        }
    }

    @Test
    void choicesFollowTheWeights() {
        // given weights 100, 200, 300, 400
        List<ServiceInstance> instances = List.of(instance("a", 100), instance("b", 200), instance("c", 300),
                instance("d", 400));
        LoadBalancer balancer = LoadBalancers.weightedRandom().seed(42).build();

        // when choosing 100 000 times
        Map<String, Long> counts = count(100_000, () -> balancer.choose(instances));

        // then the counts fit the weights (chi-square below the 0.1 % critical value for 3 degrees of freedom)
        assertThat(chiSquare(counts, weightsOf(instances))).isLessThan(CRITICAL_DF3);
        assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(100_000);
    }

    @Test
    void weightZeroIsNeverChosen() {
        // given one instance of weight 0 among others
        List<ServiceInstance> instances = List.of(instance("a", 1), instance("zero", 0), instance("c", 10_000));
        LoadBalancer balancer = LoadBalancers.weightedRandom().seed(7).build();

        // when choosing many times
        Map<String, Long> counts = count(50_000, () -> balancer.choose(instances));

        // then the weight-0 instance never comes up, the light one does
        assertThat(counts).doesNotContainKey("zero").containsKey("a");
    }

    @Test
    void newListObjectWithChangedWeightsGetsANewTable() {
        // given a balancer that has served a list where "a" dominates
        LoadBalancer balancer = LoadBalancers.weightedRandom().seed(1).build();
        List<ServiceInstance> first = List.of(instance("a", 10_000), instance("b", 1));
        assertThat(count(10_000, () -> balancer.choose(first)).getOrDefault("a", 0L)).isGreaterThan(9_900);

        // when the service changes: a new snapshot object where "b" dominates
        List<ServiceInstance> second = List.of(instance("a", 1), instance("b", 10_000));
        Map<String, Long> counts = count(10_000, () -> balancer.choose(second));

        // then the new weights apply at once
        assertThat(counts.getOrDefault("b", 0L)).isGreaterThan(9_900);
    }

    @Test
    void oneInstanceIsAlwaysChosen() {
        // given one instance
        List<ServiceInstance> instances = List.of(instance("only", 5));
        LoadBalancer balancer = LoadBalancers.weightedRandom().build();

        // when / then
        assertThat(count(100, () -> balancer.choose(instances))).containsOnlyKeys("only");
    }

    @Test
    void emptyListFailsWithTheServiceState() {
        // given a balancer that knows its service and an empty list
        LoadBalancer balancer = LoadBalancers.weightedRandom().serviceId("orders").build();

        // when / then
        assertThatThrownBy(() -> balancer.choose(List.of()))
                .isInstanceOf(NoInstanceAvailableException.class)
                .hasMessageContaining("No instance of 'orders'")
                .hasMessageContaining("registered=0");
    }

    @Test
    void weightedRandomKeepsNoSharedCounter() {
        // given the weighted random strategy prepared for two candidates
        AtomicLong position = new AtomicLong();
        Picker picker = Strategy.WEIGHTED_RANDOM.prepare(
                new ServiceInstance[] {instance("a", 1), instance("b", 1)}, new long[] {1, 1}, position);

        // when picking
        picker.pick(new Random(3));

        // then it keeps no shared position (nothing for concurrent callers to contend on)
        assertThat(position.get()).isZero();
    }
}
