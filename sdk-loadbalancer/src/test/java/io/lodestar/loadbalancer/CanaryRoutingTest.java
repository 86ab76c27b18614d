package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class CanaryRoutingTest {
    private static final ServiceInstance STABLE_1 = instance("s1", 100, "zone", "eu-1");
    private static final ServiceInstance STABLE_2 = instance("s2", 100, "zone", "eu-2");
    private static final ServiceInstance CANARY_1 = instance("c1", 100, "canary", "true", "zone", "eu-1");
    private static final ServiceInstance CANARY_2 = instance("c2", 100, "canary", "true", "zone", "eu-2");
    private static final List<ServiceInstance> ALL = List.of(STABLE_1, STABLE_2, CANARY_1, CANARY_2);
    private static final RequestContext HINTED = RequestContext.of(Map.of("X-Canary", "true"));

    @Test
    void withoutPercentOrHintNoTrafficReachesCanaries() {
        // given canary routing with no share
        LoadBalancer balancer = LoadBalancers.weightedRandom().canary(CanaryRouting.byMetadata()).seed(1).build();

        // when / then
        assertThat(count(1_000, () -> balancer.choose(ALL))).containsOnlyKeys("s1", "s2");
    }

    @Test
    void requestsCarryingTheHintGoToCanaries() {
        // given a hint header
        LoadBalancer balancer = LoadBalancers.weightedRandom()
                .canary(CanaryRouting.byMetadata().hint("X-Canary", "true")).seed(1).build();

        // when / then hinted requests reach only canaries, others only stable instances
        assertThat(count(1_000, () -> balancer.choose(ALL, HINTED))).containsOnlyKeys("c1", "c2");
        assertThat(count(1_000, () -> balancer.choose(ALL, RequestContext.of(Map.of("X-Canary", "no")))))
                .containsOnlyKeys("s1", "s2");
    }

    @Test
    void percentSendsThatShareToCanaries() {
        // given 10 % canary traffic
        LoadBalancer balancer = LoadBalancers.roundRobin().canary(CanaryRouting.byMetadata().percent(10))
                .seed(42).build();

        // when choosing 100 000 times
        Map<String, Long> counts = count(100_000, () -> balancer.choose(ALL));

        // then about 10 % land on canaries (binomial sd ~ 0.1 %, tolerance 0.5 %)
        double canaryShare = (counts.getOrDefault("c1", 0L) + counts.getOrDefault("c2", 0L)) / 100_000.0;
        assertThat(canaryShare).isCloseTo(0.10, within(0.005));
    }

    @Test
    void percentDecisionsAreReproducibleWithASeed() {
        // given two balancers with the same seed and a 30 % split
        CanaryRouting routing = CanaryRouting.byMetadata().percent(30);
        LoadBalancer first = LoadBalancers.weightedRandom().canary(routing).seed(5).build();
        LoadBalancer second = LoadBalancers.weightedRandom().canary(routing).seed(5).build();

        // when / then
        assertThat(Fixtures.sequence(500, () -> first.choose(ALL)))
                .isEqualTo(Fixtures.sequence(500, () -> second.choose(ALL)));
    }

    @Test
    void stickyRoutingKeepsAUserOnOneSide() {
        // given a 50 % split bucketed by user id
        LoadBalancer balancer = LoadBalancers.roundRobin()
                .canary(CanaryRouting.byMetadata().percent(50).stickyBy("user")).build();

        // when one user sends many requests
        for (String user : List.of("alice", "bob", "carol", "dave", "erin")) {
            RequestContext context = RequestContext.of(Map.of("user", user));
            Map<String, Long> counts = count(200, () -> balancer.choose(ALL, context));

            // then they all land on the same side
            boolean canary = counts.containsKey("c1") || counts.containsKey("c2");
            boolean stable = counts.containsKey("s1") || counts.containsKey("s2");
            assertThat(canary ^ stable).as(user + " " + counts).isTrue();
        }
    }

    @Test
    void stickyBucketsSplitUsersByThePercentage() {
        // given 10 000 distinct user ids
        int inCanary = 0;
        for (int i = 0; i < 10_000; i++) {
            if (CanaryRouting.bucket("user-" + i) < 2_000) {
                inCanary++;
            }
        }

        // then about 20 % fall below the 20 % threshold
        assertThat(inCanary / 10_000.0).isCloseTo(0.20, within(0.02));
    }

    @Test
    void selectorsAfterTheSplitApplyWithinEachSide() {
        // given the split first, then zone preference
        LoadBalancer balancer = LoadBalancers.roundRobin()
                .canary(CanaryRouting.byMetadata().hint("X-Canary", "true"))
                .selector(Selectors.zonePreference("eu-2")).seed(0).build();

        // when / then each side prefers its own eu-2 instance
        assertThat(count(100, () -> balancer.choose(ALL, HINTED))).containsOnlyKeys("c2");
        assertThat(count(100, () -> balancer.choose(ALL))).containsOnlyKeys("s2");
    }

    @Test
    void anEmptyCanarySideFallsBackToStable() {
        // given hinted requests but no canary instance
        LoadBalancer balancer = LoadBalancers.weightedRandom()
                .canary(CanaryRouting.byMetadata().hint("X-Canary", "true")).build();

        // when / then
        assertThat(count(100, () -> balancer.choose(List.of(STABLE_1), HINTED))).containsOnlyKeys("s1");
    }

    @Test
    void anEmptyStableSideFallsBackToCanaries() {
        // given only canary instances
        LoadBalancer balancer = LoadBalancers.weightedRandom().canary(CanaryRouting.byMetadata()).build();

        // when / then unhinted requests are still served
        assertThat(count(100, () -> balancer.choose(List.of(CANARY_1)))).containsOnlyKeys("c1");
    }

    @Test
    void whenBothSidesAreEmptyTheFailureNamesTheRequestedSide() {
        // given canary routing and no UP instance at all
        LoadBalancer balancer = LoadBalancers.weightedRandom()
                .canary(CanaryRouting.byMetadata().hint("X-Canary", "true")).build();
        List<ServiceInstance> down = List.of(instance("d", 100, InstanceStatus.DOWN));

        // when / then
        assertThatThrownBy(() -> balancer.choose(down, HINTED))
                .isInstanceOf(NoInstanceAvailableException.class)
                .hasMessage("No instance of 'orders' matching [status=UP, canary=true, weight>0]"
                        + " (registered=1, afterStatus=0, afterCanary=0, afterWeight=0)");
        assertThatThrownBy(() -> balancer.choose(down))
                .hasMessageContaining("[status=UP, canary!=true, weight>0]");
    }

    @Test
    void customCanaryTagAndFullShare() {
        // given canaries marked by version 2, and 100 %
        ServiceInstance v1 = instance("v1", 100, "version", "1");
        ServiceInstance v2 = instance("v2", 100, "version", "2");
        LoadBalancer balancer = LoadBalancers.weightedRandom()
                .canary(CanaryRouting.byMetadata("version", "2").percent(100)).build();

        // when / then
        assertThat(count(100, () -> balancer.choose(List.of(v1, v2)))).containsOnlyKeys("v2");
    }

    @Test
    void badSettingsNameTheFieldAndRule() {
        assertThatThrownBy(() -> CanaryRouting.byMetadata().percent(120))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("canary.percent must be between 0 and 100, but was 120.0");
        assertThatThrownBy(() -> CanaryRouting.byMetadata().percent(Double.NaN))
                .hasMessageContaining("canary.percent must be between 0 and 100, but was NaN");
        assertThatThrownBy(() -> CanaryRouting.byMetadata().hint("", null))
                .hasMessageContaining("canary.hintAttribute must be a non-empty string, but was ''")
                .hasMessageContaining("canary.hintValue must be a non-empty string, but was null");
        assertThatThrownBy(() -> LoadBalancers.weightedRandom().canary(CanaryRouting.byMetadata())
                .canary(CanaryRouting.byMetadata()).build())
                .hasMessageContaining("canary must be set at most once");
    }
}
