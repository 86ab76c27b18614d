package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.Fixtures.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProtectionTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
    private final List<ServiceInstance> four = List.of(instance("a", 100), instance("b", 100), instance("c", 100),
            instance("d", 100));
    private final LoadBalancer balancer = LoadBalancers.roundRobin()
            .protection(ProtectionPolicy.holdBelow(50, Duration.ofSeconds(30))).clock(clock).seed(0).build();

    @Test
    void anUpdateBelowTheThresholdIsHeldBackAndCounted() {
        // given a balancer serving four instances
        count(4, () -> balancer.choose(four));

        // when the next list has only one of them (25 % < 50 %)
        List<ServiceInstance> one = List.of(instance("a", 100));

        // then the four keep serving, once counted, however often the small list comes
        assertThat(count(400, () -> balancer.choose(one))).containsOnlyKeys("a", "b", "c", "d");
        assertThat(balancer.protectionTriggers()).isEqualTo(1);
        assertThat(balancer.holdingBackUpdate()).isTrue();
    }

    @Test
    void aListThatEmptiesTheServiceIsHeldBack() {
        // given a served list
        balancer.choose(four);

        // when every instance vanishes at once
        ServiceInstance chosen = balancer.choose(List.of());

        // then the previous list still serves
        assertThat(chosen).isIn(four);
        assertThat(balancer.protectionTriggers()).isEqualTo(1);
    }

    @Test
    void theHoldEndsWhenTheMaximumHoldTimeRunsOut() {
        // given a held-back empty list
        balancer.choose(four);
        List<ServiceInstance> empty = List.of();
        balancer.choose(empty);

        // when the hold time has passed
        clock.advanceMillis(30_000);

        // then the empty list is accepted, and the balancer says so
        assertThatThrownBy(() -> balancer.choose(empty)).isInstanceOf(NoInstanceAvailableException.class)
                .hasMessageContaining("registered=0");
        assertThat(balancer.holdingBackUpdate()).isFalse();
        assertThat(balancer.protectionTriggers()).isEqualTo(1);
    }

    @Test
    void aRecoveredListEndsTheHoldAtOnce() {
        // given a hold in progress
        balancer.choose(four);
        balancer.choose(List.of(instance("a", 100)));

        // when a list with three of four arrives
        List<ServiceInstance> three = List.of(instance("a", 100), instance("b", 100), instance("e", 100));

        // then it is served at once
        assertThat(count(30, () -> balancer.choose(three))).containsOnlyKeys("a", "b", "e");
        assertThat(balancer.holdingBackUpdate()).isFalse();
    }

    @Test
    void furtherSuspiciousListsDoNotExtendTheHold() {
        // given a hold that started 20 s ago
        balancer.choose(four);
        balancer.choose(List.of(instance("a", 100)));
        clock.advanceMillis(20_000);

        // when another small list arrives, and 10 s later
        List<ServiceInstance> other = List.of(instance("b", 100));
        balancer.choose(other);
        clock.advanceMillis(10_000);

        // then the hold is over after 30 s in total, one incident counted
        assertThat(count(10, () -> balancer.choose(other))).containsOnlyKeys("b");
        assertThat(balancer.protectionTriggers()).isEqualTo(1);
    }

    @Test
    void shrinkingToTheThresholdIsAccepted() {
        // given four instances
        balancer.choose(four);

        // when half of them remain (50 % is not below 50 %)
        List<ServiceInstance> two = List.of(instance("a", 100), instance("b", 100));

        // then the update is accepted
        assertThat(count(10, () -> balancer.choose(two))).containsOnlyKeys("a", "b");
        assertThat(balancer.protectionTriggers()).isZero();
    }

    @Test
    void aNewIncidentAfterAnAcceptedUpdateCountsAgain() {
        // given an incident that ended by recovery
        balancer.choose(four);
        balancer.choose(List.of());
        balancer.choose(four.subList(0, 3));

        // when the service collapses again
        balancer.choose(List.of(instance("z", 100)));

        // then it is a second incident
        assertThat(balancer.protectionTriggers()).isEqualTo(2);
    }

    @Test
    void withoutProtectionEveryUpdateIsServed() {
        LoadBalancer unprotected = LoadBalancers.roundRobin().build();
        unprotected.choose(four);

        assertThat(unprotected.choose(List.of(instance("z", 100))).instanceId()).isEqualTo("z");
        assertThat(unprotected.protectionTriggers()).isZero();
    }

    @Test
    void badPolicyArgumentsAreAllReported() {
        assertThatThrownBy(() -> ProtectionPolicy.holdBelow(0, Duration.ofSeconds(-1)))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("minPercent must be between 1 and 100, but was 0")
                .hasMessageContaining("maxHold must be positive, but was PT-1S");
    }
}
