package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.Fixtures.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static io.lodestar.loadbalancer.Fixtures.registeredAt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class SlowStartTest {
    private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(NOW);
    private final ServiceInstance settled = registeredAt(instance("old", 100), NOW.minus(Duration.ofHours(1)));
    private final ServiceInstance fresh = registeredAt(instance("new", 100), NOW);
    private final List<ServiceInstance> instances = List.of(settled, fresh);

    private LoadBalancer smoothBalancer() {
        return LoadBalancers.weightedRoundRobin().slowStart(Duration.ofSeconds(10)).clock(clock).seed(0).build();
    }

    @Test
    void aNewInstanceStartsAtOnePercentOfItsWeight() {
        // given an instance registered just now, next to a settled one of the same weight
        LoadBalancer balancer = smoothBalancer();

        // when choosing one full cycle (weights 100 % : 1 %)
        Map<String, Long> counts = count(101, () -> balancer.choose(instances));

        // then the new one gets 1 of 101
        assertThat(counts).isEqualTo(Map.of("old", 100L, "new", 1L));
    }

    @Test
    void theWeightRampsLinearlyOverTheWindow() {
        // given a balancer that has prepared the list at registration time
        LoadBalancer balancer = smoothBalancer();
        balancer.choose(instances);

        // when half the window has passed
        clock.advanceMillis(5_000);
        Map<String, Long> half = count(3_000, () -> balancer.choose(instances));
        // and when the whole window has passed
        clock.advanceMillis(5_000);
        Map<String, Long> full = count(3_000, () -> balancer.choose(instances));

        // then the new instance had half its weight (1 of 3 picks), then all of it (1 of 2)
        assertThat(half).isEqualTo(Map.of("old", 2_000L, "new", 1_000L));
        assertThat(full).isEqualTo(Map.of("old", 1_500L, "new", 1_500L));
    }

    @Test
    void weightedRandomRampsToo() {
        // given weighted random, a quarter into the window
        LoadBalancer balancer = LoadBalancers.weightedRandom().slowStart(Duration.ofSeconds(20)).clock(clock)
                .seed(3).build();
        clock.advanceMillis(5_000);

        // when
        Map<String, Long> counts = count(50_000, () -> balancer.choose(instances));

        // then the new instance gets 25 of 125 parts (20 %), within 1 %
        assertThat(counts.get("new") / 50_000.0).isCloseTo(0.20, within(0.01));
    }

    @Test
    void rebuildsAreBoundedToOncePerSecondWhileRamping() {
        // given a selector that counts table rebuilds, and a 10 s ramp
        AtomicInteger rebuilds = new AtomicInteger();
        LoadBalancer balancer = LoadBalancers.weightedRandom().slowStart(Duration.ofSeconds(10)).clock(clock)
                .selector(Selectors.named("counting", candidates -> {
                    rebuilds.incrementAndGet();
                    return candidates;
                })).build();

        // when choosing 1 000 times every 100 ms for 3 s
        for (int tick = 0; tick < 30; tick++) {
            count(1_000, () -> balancer.choose(instances));
            clock.advanceMillis(100);
        }

        // then the table was rebuilt at most once per second (plus the first build)
        assertThat(rebuilds.get()).isBetween(3, 4);
    }

    @Test
    void rebuildsStopOnceEveryInstanceIsSettled() {
        // given a ramp that has ended
        AtomicInteger rebuilds = new AtomicInteger();
        LoadBalancer balancer = LoadBalancers.weightedRandom().slowStart(Duration.ofSeconds(2)).clock(clock)
                .selector(Selectors.named("counting", candidates -> {
                    rebuilds.incrementAndGet();
                    return candidates;
                })).build();
        balancer.choose(instances);
        clock.advanceMillis(3_000);
        balancer.choose(instances);
        int afterRamp = rebuilds.get();

        // when time goes on
        clock.advanceMillis(60_000);
        count(100, () -> balancer.choose(instances));

        // then nothing is rebuilt any more
        assertThat(rebuilds.get()).isEqualTo(afterRamp);
    }

    @Test
    void instancesWithoutRegistrationTimeGetTheirFullWeight() {
        // given an instance that was never registered through Redis (a static list)
        List<ServiceInstance> list = List.of(settled, instance("static", 100));
        LoadBalancer balancer = smoothBalancer();

        // when / then
        assertThat(count(2_000, () -> balancer.choose(list))).isEqualTo(Map.of("old", 1_000L, "static", 1_000L));
    }

    @Test
    void aRegistrationTimeInTheFutureCountsAsJustRegistered() {
        // given clock skew: Redis' time is ahead of ours
        List<ServiceInstance> list = List.of(settled, registeredAt(instance("ahead", 100), NOW.plusSeconds(3)));
        LoadBalancer balancer = smoothBalancer();

        // when / then
        assertThat(count(101, () -> balancer.choose(list))).isEqualTo(Map.of("old", 100L, "ahead", 1L));
    }

    @Test
    void slowStartNeedsAWeightedStrategyAndAPositiveWindow() {
        assertThatThrownBy(() -> LoadBalancers.roundRobin().slowStart(Duration.ofSeconds(10)).build())
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("strategy must be WEIGHTED_RANDOM or WEIGHTED_ROUND_ROBIN when slowStart is set,"
                        + " but was ROUND_ROBIN");
        assertThatThrownBy(() -> LoadBalancers.weightedRandom().slowStart(Duration.ZERO).build())
                .hasMessageContaining("slowStart must be positive, but was PT0S");
    }
}
