package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.random.RandomGenerator;

import static io.lodestar.loadbalancer.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadBalancersTest {
    @Test
    void buildReportsEveryInvalidSettingAtOnce() {
        // given a builder with several mistakes
        LoadBalancers.Builder builder = LoadBalancers.builder(null)
                .selector(null)
                .onEmpty(null)
                .seed(1)
                .random(new Random(2))
                .clock(null)
                .protection(null)
                .serviceId("bad id");

        // when / then each is named with its rule
        assertThatThrownBy(builder::build)
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("strategy must be non-null, but was null")
                .hasMessageContaining("selectors[0] must be non-null, but was null")
                .hasMessageContaining("onEmpty must be non-null, but was null")
                .hasMessageContaining("clock must be non-null, but was null")
                .hasMessageContaining("random must be unset when a seed is set")
                .hasMessageContaining("protection must be non-null, but was null")
                .hasMessageContaining("serviceId must be 1-128 characters of [A-Za-z0-9._-]")
                .satisfies(e -> assertThat(((InvalidArgumentException) e).violations()).hasSize(7));
    }

    @Test
    void slowStartOverADayIsRejected() {
        assertThatThrownBy(() -> LoadBalancers.weightedRandom().slowStart(Duration.ofDays(2)).build())
                .hasMessageContaining("slowStart must be at most PT24H, but was PT48H");
    }

    @Test
    void theReadmeExampleBuildsAndChooses() {
        // given the builder chain from the issue
        LoadBalancer balancer = LoadBalancers.weightedRandom()
                .selector(Selectors.zonePreference("eu-1"))
                .selector(Selectors.healthyOnly())
                .onEmpty(EmptyPolicy.FAIL)
                .seed(42)
                .build();

        // when / then
        assertThat(balancer.choose(List.of(instance("a", 100, "zone", "eu-1"), instance("b", 100, "zone", "eu-2")))
                .instanceId()).isEqualTo("a");
        assertThat(balancer).hasToString("LoadBalancer[WEIGHTED_RANDOM, selectors=[zone=eu-1 preferred, status=UP],"
                + " onEmpty=FAIL]");
    }

    @Test
    void theDefaultStatusFilterShowsInToString() {
        assertThat(LoadBalancers.roundRobin().serviceId("orders").build())
                .hasToString("LoadBalancer[ROUND_ROBIN, serviceId=orders, selectors=[status=UP], onEmpty=FAIL]");
    }

    @Test
    void aCustomRandomGeneratorIsUsed() {
        // given a generator that always answers 0
        LoadBalancer balancer = LoadBalancers.random().random(new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public int nextInt(int bound) {
                return 0;
            }
        }).build();

        // when / then the first candidate is always chosen
        assertThat(balancer.choose(List.of(instance("a", 1), instance("b", 1))).instanceId()).isEqualTo("a");
    }

    @Test
    void requestContextOfRejectsNullValues() {
        Map<String, String> withNull = new HashMap<>();
        withNull.put("user", null);

        assertThatThrownBy(() -> RequestContext.of(withNull))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("attributes[user] must be a non-null key with a non-null value, but was null");
        assertThat(RequestContext.of(Map.of("user", "alice")).attribute("user")).isEqualTo("alice");
        assertThat(RequestContext.NONE.attribute("user")).isNull();
    }
}
