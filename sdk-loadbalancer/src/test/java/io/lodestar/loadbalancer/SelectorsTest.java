package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SelectorsTest {
    private static final ServiceInstance UP_A = instance("a", 100, "zone", "eu-1", "version", "1");
    private static final ServiceInstance UP_B = instance("b", 100, "zone", "eu-2", "version", "2");
    private static final ServiceInstance DOWN_C = instance("c", 100, InstanceStatus.DOWN, "zone", "eu-1");
    private static final ServiceInstance OOS_D = instance("d", 100, InstanceStatus.OUT_OF_SERVICE, "zone", "eu-1");
    private static final ServiceInstance STARTING_E = instance("e", 100, InstanceStatus.STARTING);
    private static final List<ServiceInstance> ALL = List.of(UP_A, UP_B, DOWN_C, OOS_D, STARTING_E);

    @Test
    void healthyOnlyKeepsOnlyUp() {
        assertThat(Selectors.healthyOnly().select(ALL)).containsExactly(UP_A, UP_B);
        assertThat(Selectors.healthyOnly()).hasToString("status=UP");
    }

    @Test
    void statusKeepsTheGivenStatuses() {
        Selector selector = Selectors.status(InstanceStatus.UP, InstanceStatus.STARTING);

        assertThat(selector.select(ALL)).containsExactly(UP_A, UP_B, STARTING_E);
        assertThat(selector).hasToString("status in [UP, STARTING]");
    }

    @Test
    void balancersFilterNonUpInstancesByDefault() {
        // given a balancer without any status selector
        LoadBalancer balancer = LoadBalancers.roundRobin().seed(0).build();

        // when / then DOWN, OUT_OF_SERVICE and STARTING are never chosen
        assertThat(count(100, () -> balancer.choose(ALL))).containsOnlyKeys("a", "b");
    }

    @Test
    void anExplicitStatusSelectorReplacesTheDefault() {
        // given a balancer that allows every status
        LoadBalancer balancer = LoadBalancers.roundRobin().selector(Selectors.status(InstanceStatus.values()))
                .seed(0).build();

        // when / then
        assertThat(count(100, () -> balancer.choose(ALL))).containsOnlyKeys("a", "b", "c", "d", "e");
    }

    @Test
    void metadataKeepsExactMatches() {
        assertThat(Selectors.metadata("zone", "eu-1").select(ALL)).containsExactly(UP_A, DOWN_C, OOS_D);
    }

    @Test
    void metadataInKeepsAnyOfTheValues() {
        Selector selector = Selectors.metadataIn("version", Set.of("2", "1"));

        assertThat(selector.select(ALL)).containsExactly(UP_A, UP_B);
        assertThat(selector).hasToString("version in [1, 2]");
    }

    @Test
    void metadataPresentKeepsInstancesWithTheKey() {
        assertThat(Selectors.metadataPresent("version").select(ALL)).containsExactly(UP_A, UP_B);
    }

    @Test
    void zonePreferenceKeepsMyZoneWhenItHasAUsableInstance() {
        assertThat(Selectors.zonePreference("eu-2").select(ALL)).containsExactly(UP_B);
    }

    @Test
    void zonePreferenceFallsBackToAllWhenMyZoneHasNoUpInstance() {
        // given a zone whose instances are all DOWN or OUT_OF_SERVICE
        List<ServiceInstance> instances = List.of(DOWN_C, OOS_D, UP_B);

        // when / then everything is kept, so the status filter leaves the other zone's UP instance
        assertThat(Selectors.zonePreference("eu-1").select(instances)).isSameAs(instances);
    }

    @Test
    void zonePreferenceTreatsAZoneOfWeightZeroAsEmpty() {
        // given my zone's only UP instance has weight 0
        ServiceInstance drained = instance("z", 0, "zone", "eu-1");
        List<ServiceInstance> instances = List.of(drained, UP_B);

        // when / then
        assertThat(Selectors.zonePreference("eu-1").select(instances)).isSameAs(instances);
    }

    @Test
    void zonePreferenceBeforeTheStatusFilterStillFallsBack() {
        // given zone preference placed before an explicit healthyOnly, and my zone has only DOWN instances
        LoadBalancer balancer = LoadBalancers.weightedRandom().selector(Selectors.zonePreference("eu-1"))
                .selector(Selectors.healthyOnly()).seed(1).build();
        List<ServiceInstance> instances = List.of(DOWN_C, UP_B);

        // when / then the other zone serves
        assertThat(count(50, () -> balancer.choose(instances))).containsOnlyKeys("b");
    }

    @Test
    void regionThenZonePreferenceNarrowsStepByStep() {
        // given instances in two regions and three zones
        ServiceInstance west1 = inRegion("west", instance("w1", 100, "zone", "w-1"));
        ServiceInstance west2 = inRegion("west", instance("w2", 100, "zone", "w-2"));
        ServiceInstance east1 = inRegion("east", instance("e1", 100, "zone", "e-1"));
        List<ServiceInstance> instances = List.of(west1, west2, east1);
        LoadBalancer balancer = LoadBalancers.roundRobin().selector(Selectors.regionPreference("west"))
                .selector(Selectors.zonePreference("w-3")).seed(0).build();

        // when / then my zone is empty, so the region's instances share the traffic
        assertThat(count(100, () -> balancer.choose(instances))).containsOnlyKeys("w1", "w2");
    }

    @Test
    void sameZoneElseSameRegionElseAnyRegionIsOneBalancer() {
        // given my zone w-1 in region west, whose only instance is DOWN
        ServiceInstance inMyZone = inRegion("west", instance("w1", 100, InstanceStatus.DOWN, "zone", "w-1"));
        ServiceInstance inMyRegion = inRegion("west", instance("w2", 100, "zone", "w-2"));
        ServiceInstance elsewhere = inRegion("east", instance("e1", 100, "zone", "e-1"));
        LoadBalancer balancer = LoadBalancers.roundRobin().selector(Selectors.regionPreference("west"))
                .selector(Selectors.zonePreference("w-1")).seed(0).build();

        // when / then my region serves while it has a usable instance, any region once it has none
        assertThat(count(50, () -> balancer.choose(List.of(inMyZone, inMyRegion, elsewhere))))
                .containsOnlyKeys("w2");
        assertThat(count(50, () -> balancer.choose(List.of(inMyZone, elsewhere)))).containsOnlyKeys("e1");
    }

    @Test
    void regionPreferenceGoesByTheStampedRegionNotByMetadata() {
        // given an instance of region east that claims region west in its metadata
        ServiceInstance claimsWest = inRegion("east", instance("e1", 100, "region", "west"));
        ServiceInstance west = inRegion("west", instance("w1", 100));

        // when / then the stamp decides
        assertThat(Selectors.regionPreference("west").select(List.of(claimsWest, west))).containsExactly(west);
        assertThat(Selectors.regionPreference("west")).hasToString("region=west preferred");
    }

    private static ServiceInstance inRegion(String region, ServiceInstance instance) {
        return instance.toBuilder().region(region).build();
    }

    @Test
    void matchingKeepsWhatThePredicateAccepts() {
        Selector selector = Selectors.matching("blue", instance -> instance.instanceId().equals("b"));

        assertThat(selector.select(ALL)).containsExactly(UP_B);
        assertThat(selector).hasToString("blue");
    }

    @Test
    void selectorsRunInOrderOnThePreviousResult() {
        // given a strict zone filter followed by a version filter
        LoadBalancer balancer = LoadBalancers.roundRobin().selector(Selectors.metadata("zone", "eu-1"))
                .selector(Selectors.metadata("version", "1")).seed(0).build();

        // when / then only the instance that passes both remains
        assertThat(count(10, () -> balancer.choose(ALL))).containsOnlyKeys("a");
    }

    @Test
    void selectorsRunOncePerListNotPerRequest() {
        // given a selector that counts its runs
        AtomicInteger runs = new AtomicInteger();
        LoadBalancer balancer = LoadBalancers.weightedRandom()
                .selector(candidates -> {
                    runs.incrementAndGet();
                    return candidates;
                }).build();
        List<ServiceInstance> first = List.of(UP_A, UP_B);

        // when choosing many times from the same list object, then from a new one
        count(1_000, () -> balancer.choose(first));
        int runsForFirst = runs.get();
        List<ServiceInstance> second = List.of(UP_A);
        count(1_000, () -> balancer.choose(second));

        // then the selector ran once per list
        assertThat(runsForFirst).isEqualTo(1);
        assertThat(runs.get()).isEqualTo(2);
    }

    @Test
    void aSelectorReturningNullIsReportedByName() {
        // given a named custom selector that returns null
        LoadBalancer balancer = LoadBalancers.weightedRandom().selector(Selectors.named("broken", c -> null)).build();

        // when / then
        assertThatThrownBy(() -> balancer.choose(List.of(UP_A)))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("result of selector 'broken' must be a list, possibly empty, but was null");
    }

    @Test
    void badArgumentsNameTheFieldAndRule() {
        assertThatThrownBy(() -> Selectors.zonePreference(""))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("value must be a non-empty string, but was ''");
        assertThatThrownBy(() -> Selectors.metadata(null, "x"))
                .hasMessageContaining("key must be a non-empty metadata key, but was null");
        assertThatThrownBy(() -> Selectors.metadataIn("version", Set.of()))
                .hasMessageContaining("values must be a non-empty set without null, but was []");
        assertThatThrownBy(() -> Selectors.status())
                .hasMessageContaining("allowed must be at least one non-null status, but was []");
        assertThatThrownBy(() -> Selectors.matching("x", null))
                .hasMessageContaining("predicate must be non-null, but was null");
    }
}
