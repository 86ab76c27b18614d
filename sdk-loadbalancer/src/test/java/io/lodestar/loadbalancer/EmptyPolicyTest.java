package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class EmptyPolicyTest {
    private static final List<ServiceInstance> THREE_IN_EU_2 = List.of(instance("a", 100, "zone", "eu-2"),
            instance("b", 100, "zone", "eu-2"), instance("c", 100, InstanceStatus.DOWN, "zone", "eu-1"));

    @Test
    void failReportsWhatEachStageLeft() {
        // given a strict zone filter that matches nothing UP
        LoadBalancer balancer = LoadBalancers.weightedRandom().selector(Selectors.metadata("zone", "eu-1"))
                .onEmpty(EmptyPolicy.FAIL).build();

        // when
        NoInstanceAvailableException failure = catchThrowableOfType(NoInstanceAvailableException.class,
                () -> balancer.choose(THREE_IN_EU_2));

        // then the message and the fields say where the candidates went
        assertThat(failure).hasMessage("No instance of 'orders' matching [status=UP, zone=eu-1, weight>0]"
                + " (registered=3, afterStatus=2, afterZone=0, afterWeight=0)");
        assertThat(failure.serviceId()).isEqualTo("orders");
        assertThat(failure.registered()).isEqualTo(3);
        assertThat(failure.criteria()).containsExactly("status=UP", "zone=eu-1", "weight>0");
        assertThat(failure.counts()).containsExactly(Map.entry("status", 2), Map.entry("zone", 0),
                Map.entry("weight", 0));
    }

    @Test
    void failIsTheDefault() {
        LoadBalancer balancer = LoadBalancers.roundRobin().selector(Selectors.metadata("zone", "eu-1")).build();

        assertThatThrownBy(() -> balancer.choose(THREE_IN_EU_2))
                .isInstanceOf(NoInstanceAvailableException.class)
                .hasMessageContaining("afterZone=0");
    }

    @Test
    void fallbackToAllIgnoresEverySelector() {
        // given the same filter, falling back to the whole list
        LoadBalancer balancer = LoadBalancers.roundRobin().selector(Selectors.metadata("zone", "eu-9"))
                .onEmpty(EmptyPolicy.FALLBACK_TO_ALL).seed(0).build();

        // when / then the whole list serves, the DOWN instance included (panic mode)
        assertThat(count(300, () -> balancer.choose(THREE_IN_EU_2)))
                .isEqualTo(Map.of("a", 100L, "b", 100L, "c", 100L));
    }

    @Test
    void fallbackToAllStillNeverChoosesWeightZero() {
        // given only weight-0 instances
        LoadBalancer balancer = LoadBalancers.weightedRandom().onEmpty(EmptyPolicy.FALLBACK_TO_ALL).build();
        List<ServiceInstance> drained = List.of(instance("a", 0), instance("b", 0));

        // when / then the fallback is empty too, and says so
        assertThatThrownBy(() -> balancer.choose(drained))
                .isInstanceOf(NoInstanceAvailableException.class)
                .hasMessageContaining("(registered=2, afterStatus=2, afterWeight=0, afterFallback=0)");
    }

    @Test
    void fallbackIsNotUsedWhileTheSelectorsLeaveSomething() {
        LoadBalancer balancer = LoadBalancers.roundRobin().selector(Selectors.metadata("zone", "eu-2"))
                .onEmpty(EmptyPolicy.FALLBACK_TO_ALL).build();

        assertThat(count(100, () -> balancer.choose(THREE_IN_EU_2))).containsOnlyKeys("a", "b");
    }

    @Test
    void emptyListWithoutServiceIdStillExplains() {
        LoadBalancer balancer = LoadBalancers.weightedRandom().build();

        assertThatThrownBy(() -> balancer.choose(List.of()))
                .isInstanceOf(NoInstanceAvailableException.class)
                .hasMessage("No instance of an unnamed service matching [status=UP, weight>0]"
                        + " (registered=0, afterStatus=0, afterWeight=0)");
    }

    @Test
    void emptyListRemembersTheServiceOfThePreviousList() {
        // given a balancer that has seen the service's instances
        LoadBalancer balancer = LoadBalancers.weightedRandom().build();
        balancer.choose(THREE_IN_EU_2);

        // when / then
        assertThatThrownBy(() -> balancer.choose(new ArrayList<>()))
                .hasMessageContaining("No instance of 'orders'");
    }

    @Test
    void nullArgumentsAreRejectedByName() {
        LoadBalancer balancer = LoadBalancers.weightedRandom().build();

        assertThatThrownBy(() -> balancer.choose(null))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("instances must be non-null, but was null");
        assertThatThrownBy(() -> balancer.choose(THREE_IN_EU_2, null))
                .hasMessage("context must be non-null, but was null");
        assertThatThrownBy(() -> balancer.choose(Arrays.asList(instance("a", 1), null)))
                .hasMessage("instances[1] must be non-null, but was null");
    }
}
