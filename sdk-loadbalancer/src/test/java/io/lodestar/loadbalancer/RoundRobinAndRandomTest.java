package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.lodestar.loadbalancer.Fixtures.chiSquare;
import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static io.lodestar.loadbalancer.Fixtures.sequence;
import static org.assertj.core.api.Assertions.assertThat;

class RoundRobinAndRandomTest {
    /** Chi-square critical value for 3 degrees of freedom at significance 0.001. */
    private static final double CRITICAL_DF3 = 16.266;

    @Test
    void roundRobinTakesEachInTurnIgnoringWeights() {
        // given different weights
        List<ServiceInstance> instances = List.of(instance("a", 1), instance("b", 500), instance("c", 10_000));
        LoadBalancer balancer = LoadBalancers.roundRobin().seed(0).build();

        // when / then
        assertThat(sequence(7, () -> balancer.choose(instances))).isEqualTo("abcabca");
    }

    @Test
    void roundRobinSkipsWeightZero() {
        // given a weight-0 instance
        List<ServiceInstance> instances = List.of(instance("a", 1), instance("zero", 0), instance("c", 1));
        LoadBalancer balancer = LoadBalancers.roundRobin().seed(0).build();

        // when / then
        assertThat(sequence(4, () -> balancer.choose(instances))).isEqualTo("acac");
    }

    @Test
    void unseededRoundRobinStillVisitsEveryInstanceOncePerCycle() {
        // given an unseeded balancer (random start position)
        List<ServiceInstance> instances = List.of(instance("a", 1), instance("b", 1), instance("c", 1));
        LoadBalancer balancer = LoadBalancers.roundRobin().build();

        // when / then
        assertThat(count(3_000, () -> balancer.choose(instances)))
                .isEqualTo(Map.of("a", 1_000L, "b", 1_000L, "c", 1_000L));
    }

    @Test
    void randomIsUniformIgnoringWeights() {
        // given very different weights
        List<ServiceInstance> instances = List.of(instance("a", 1), instance("b", 10), instance("c", 100),
                instance("d", 1_000));
        LoadBalancer balancer = LoadBalancers.random().seed(42).build();

        // when choosing 40 000 times
        Map<String, Long> counts = count(40_000, () -> balancer.choose(instances));

        // then the counts fit equal shares
        assertThat(chiSquare(counts, Map.of("a", 1.0, "b", 1.0, "c", 1.0, "d", 1.0))).isLessThan(CRITICAL_DF3);
    }

    @Test
    void sameSeedGivesTheSameChoices() {
        // given two balancers with the same seed
        List<ServiceInstance> instances = List.of(instance("a", 1), instance("b", 2), instance("c", 3));
        LoadBalancer first = LoadBalancers.weightedRandom().seed(99).build();
        LoadBalancer second = LoadBalancers.weightedRandom().seed(99).build();

        // when / then
        assertThat(sequence(200, () -> first.choose(instances)))
                .isEqualTo(sequence(200, () -> second.choose(instances)));
    }
}
