package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.Violation;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.Fixtures.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.lodestar.loadbalancer.Fixtures.count;
import static io.lodestar.loadbalancer.Fixtures.instance;
import static io.lodestar.loadbalancer.Fixtures.registeredAt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The settings model both framework modules bind: defaults, what each setting does, and how it is rejected. */
class LoadBalancerSettingsTest {
    private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

    private final LoadBalancerSettings settings = new LoadBalancerSettings();

    @Test
    void defaultsAreWeightedRandomOverHealthyInstancesWithNothingElse() {
        assertThat(settings.getStrategy()).isEqualTo(Strategy.WEIGHTED_RANDOM);
        assertThat(settings.getPreferZone()).isNull();
        assertThat(settings.getPreferRegion()).isNull();
        assertThat(settings.getSlowStart()).isNull();
        assertThat(settings.getSeed()).isNull();
        assertThat(settings.getMetadata()).isEmpty();
        assertThat(settings.getCanary().getPercent()).isNull();
        assertThat(settings.getCanary().getHintHeader()).isNull();
        assertThat(settings.getCanary().getHintValue()).isEqualTo("true");
        assertThat(settings.getServices()).isEmpty();
        assertThat(settings.toLoadBalancer("orders").toString()).contains("WEIGHTED_RANDOM", "status=UP")
                .doesNotContain("slowStart", "canary", "preferred");
    }

    @Test
    void preferZoneKeepsThatZoneWhileItHasAnInstance() {
        // given
        settings.setPreferZone("eu-2");
        List<ServiceInstance> instances = List.of(instance("far", 1000, "zone", "eu-1"),
                instance("near", 1, "zone", "eu-2"));

        // when
        Map<String, Long> counts = count(100, () -> settings.toLoadBalancer("orders").choose(instances));

        // then
        assertThat(counts).isEqualTo(Map.of("near", 100L));
    }

    @Test
    void preferRegionKeepsThatRegionWhileItHasAnInstance() {
        // given
        settings.setPreferRegion("eu-west");
        List<ServiceInstance> instances = List.of(inRegion(instance("far", 1000), "us-east"),
                inRegion(instance("near", 1), "eu-west"));

        // when
        Map<String, Long> counts = count(100, () -> settings.toLoadBalancer("orders").choose(instances));

        // then
        assertThat(counts).isEqualTo(Map.of("near", 100L));
    }

    @Test
    void preferRegionWithPreferZoneIsSameZoneElseSameRegionElseAny() {
        // given a zone in my region, another zone in my region, and my zone's name in another region
        settings.setPreferRegion("eu-west");
        settings.setPreferZone("eu-1");
        ServiceInstance sameZone = inRegion(instance("same-zone", 1, "zone", "eu-1"), "eu-west");
        ServiceInstance sameRegion = inRegion(instance("same-region", 1, "zone", "eu-2"), "eu-west");
        ServiceInstance elsewhere = inRegion(instance("elsewhere", 1000, "zone", "eu-1"), "us-east");
        LoadBalancer orders = settings.toLoadBalancer("orders");

        // when / then
        assertThat(count(20, () -> orders.choose(List.of(sameZone, sameRegion, elsewhere))))
                .isEqualTo(Map.of("same-zone", 20L));
        assertThat(count(20, () -> orders.choose(List.of(sameRegion, elsewhere))))
                .isEqualTo(Map.of("same-region", 20L));
        assertThat(count(20, () -> orders.choose(List.of(elsewhere)))).isEqualTo(Map.of("elsewhere", 20L));
    }

    @Test
    void aServicesPreferRegionReplacesTheGlobalOne() {
        // given
        settings.setPreferRegion("eu-west");
        LoadBalancerSettings.Service orders = new LoadBalancerSettings.Service();
        orders.setPreferRegion("us-east");
        settings.getServices().put("orders", orders);
        List<ServiceInstance> instances = List.of(inRegion(instance("eu", 1), "eu-west"),
                inRegion(instance("us", 1), "us-east"));

        // when / then
        assertThat(count(20, () -> settings.toLoadBalancer("orders").choose(instances))).isEqualTo(Map.of("us", 20L));
        assertThat(count(20, () -> settings.toLoadBalancer("billing").choose(instances)))
                .isEqualTo(Map.of("eu", 20L));
    }

    @Test
    void slowStartRampsANewInstanceUp() {
        // given one instance registered an hour ago and one just now, of equal weight, with a one-minute ramp
        settings.setStrategy(Strategy.WEIGHTED_ROUND_ROBIN);
        settings.setSlowStart(Duration.ofMinutes(1));
        List<ServiceInstance> instances = List.of(registeredAt(instance("old", 100), NOW.minusSeconds(3600)),
                registeredAt(instance("new", 100), NOW));
        LoadBalancer balancer = settings.toLoadBalancer("orders", new MutableClock(NOW));

        // when choosing one cycle
        Map<String, Long> counts = count(101, () -> balancer.choose(instances));

        // then the new one has 1 % of its weight
        assertThat(counts).isEqualTo(Map.of("old", 100L, "new", 1L));
    }

    @Test
    void canaryPercentSendsThatShareToCanaries() {
        // given
        settings.getCanary().setPercent(100.0);
        List<ServiceInstance> instances = List.of(instance("stable", 100), instance("canary", 1, "canary", "true"));

        // when
        Map<String, Long> counts = count(50, () -> settings.toLoadBalancer("orders").choose(instances));

        // then
        assertThat(counts).isEqualTo(Map.of("canary", 50L));
    }

    @Test
    void canaryHintHeaderSendsHintedRequestsToCanaries() {
        // given
        settings.getCanary().setHintHeader("X-Canary");
        settings.getCanary().setHintValue("yes");
        LoadBalancer balancer = settings.toLoadBalancer("orders");
        List<ServiceInstance> instances = List.of(instance("stable", 100), instance("canary", 1, "canary", "true"));

        // when / then
        assertThat(balancer.choose(instances, Map.of("X-Canary", "yes")::get).instanceId()).isEqualTo("canary");
        assertThat(balancer.choose(instances, Map.of("X-Canary", "true")::get).instanceId()).isEqualTo("stable");
        assertThat(balancer.choose(instances).instanceId()).isEqualTo("stable");
    }

    @Test
    void canaryAppliesBeforeTheZonePreferenceSoEachSidePrefersTheZone() {
        // given canaries only outside my zone
        settings.setPreferZone("eu-1");
        settings.getCanary().setPercent(100.0);
        List<ServiceInstance> instances = List.of(instance("stable-near", 100, "zone", "eu-1"),
                instance("canary-far", 100, "zone", "eu-2", "canary", "true"));

        // when / then: the canary side falls back to its other zone rather than losing the canary
        assertThat(settings.toLoadBalancer("orders").choose(instances).instanceId()).isEqualTo("canary-far");
    }

    @Test
    void metadataKeepsOnlyInstancesWithEveryEntry() {
        // given
        settings.getMetadata().put("version", "2");
        settings.getMetadata().put("tier", "gold");
        List<ServiceInstance> instances = List.of(instance("v1", 100, "version", "1", "tier", "gold"),
                instance("v2-silver", 100, "version", "2", "tier", "silver"),
                instance("v2-gold", 1, "version", "2", "tier", "gold"));

        // when
        Map<String, Long> counts = count(50, () -> settings.toLoadBalancer("orders").choose(instances));

        // then
        assertThat(counts).isEqualTo(Map.of("v2-gold", 50L));
    }

    @Test
    void aServicesSettingsReplaceTheGlobalOnesForThatServiceOnly() {
        // given
        settings.setPreferZone("eu-1");
        LoadBalancerSettings.Service orders = new LoadBalancerSettings.Service();
        orders.setPreferZone("eu-2");
        orders.setStrategy(Strategy.ROUND_ROBIN);
        settings.getServices().put("orders", orders);
        List<ServiceInstance> instances = List.of(instance("a", 100, "zone", "eu-1"),
                instance("b", 100, "zone", "eu-2"));

        // when / then
        assertThat(settings.toLoadBalancer("orders").choose(instances).instanceId()).isEqualTo("b");
        assertThat(settings.toLoadBalancer("orders").toString()).contains("ROUND_ROBIN");
        assertThat(settings.toLoadBalancer("billing").choose(instances).instanceId()).isEqualTo("a");
    }

    @Test
    void aServicesMetadataIsAddedToTheGlobalAndWinsOnTheSameKey() {
        // given
        settings.getMetadata().put("version", "1");
        settings.getMetadata().put("tier", "gold");
        LoadBalancerSettings.Service orders = new LoadBalancerSettings.Service();
        orders.getMetadata().put("version", "2");
        settings.getServices().put("orders", orders);
        List<ServiceInstance> instances = List.of(instance("v1-gold", 100, "version", "1", "tier", "gold"),
                instance("v2-gold", 100, "version", "2", "tier", "gold"),
                instance("v2-silver", 100, "version", "2", "tier", "silver"));

        // when / then
        assertThat(count(20, () -> settings.toLoadBalancer("orders").choose(instances)))
                .isEqualTo(Map.of("v2-gold", 20L));
        assertThat(count(20, () -> settings.toLoadBalancer("billing").choose(instances)))
                .isEqualTo(Map.of("v1-gold", 20L));
    }

    @Test
    void aSeedMakesTheChoicesReproducible() {
        settings.setSeed(7L);
        List<ServiceInstance> instances = List.of(instance("a", 100), instance("b", 100), instance("c", 100));

        String first = Fixtures.sequence(30, () -> settings.toLoadBalancer("orders").choose(instances));
        String second = Fixtures.sequence(30, () -> settings.toLoadBalancer("orders").choose(instances));

        assertThat(first).isEqualTo(second);
    }

    @Test
    void validateNamesEveryBadSettingByItsPropertyOnce() {
        // given bad global values and a bad per-service value
        settings.setStrategy(Strategy.ROUND_ROBIN);
        settings.setSlowStart(Duration.ofSeconds(-5));
        settings.setPreferZone("");
        settings.setPreferRegion("");
        settings.getCanary().setPercent(150.0);
        settings.getCanary().setHintHeader("");
        LoadBalancerSettings.Service orders = new LoadBalancerSettings.Service();
        orders.setSlowStart(Duration.ofDays(2));
        orders.setStrategy(Strategy.WEIGHTED_RANDOM);
        orders.setPreferRegion("");
        settings.getServices().put("orders", orders);

        // when / then
        assertThatThrownBy(settings::validate).isInstanceOfSatisfying(InvalidArgumentException.class, e ->
                assertThat(e.violations()).containsExactlyInAnyOrder(
                        new Violation("canary.percent", "150.0", "between 0 and 100"),
                        new Violation("canary.hint-header", "''", "a non-empty string"),
                        new Violation("prefer-zone", "''", "a non-empty string"),
                        new Violation("prefer-region", "''", "a non-empty string"),
                        new Violation("services.orders.prefer-region", "''", "a non-empty string"),
                        new Violation("slow-start", "PT-5S", "positive"),
                        new Violation("strategy", "ROUND_ROBIN",
                                "WEIGHTED_RANDOM or WEIGHTED_ROUND_ROBIN when slowStart is set"),
                        new Violation("services.orders.slow-start", "PT48H", "at most PT24H")))
                .hasMessageContaining("services.orders.slow-start must be at most PT24H, but was PT48H")
                .hasMessageContaining("canary.percent must be between 0 and 100, but was 150.0")
                .hasMessageContaining("services.orders.prefer-region must be a non-empty string, but was ''");
    }

    @Test
    void aServicesStrategyIsReportedUnderTheService() {
        LoadBalancerSettings.Service orders = new LoadBalancerSettings.Service();
        orders.setStrategy(Strategy.RANDOM);
        settings.getServices().put("orders", orders);
        settings.setSlowStart(Duration.ofSeconds(30));

        assertThatThrownBy(settings::validate).hasMessage("services.orders.strategy must be WEIGHTED_RANDOM or "
                + "WEIGHTED_ROUND_ROBIN when slowStart is set, but was RANDOM");
    }

    @Test
    void aBadServiceKeyIsReportedAsThatService() {
        settings.getServices().put("no spaces", new LoadBalancerSettings.Service());

        assertThatThrownBy(settings::validate).hasMessageStartingWith("services.no spaces must be 1-128 characters");
    }

    @Test
    void toLoadBalancerRejectsANullServiceId() {
        assertThatThrownBy(() -> settings.toLoadBalancer(null)).isInstanceOf(InvalidArgumentException.class)
                .hasMessage("serviceId must be non-null, but was null");
    }

    private static ServiceInstance inRegion(ServiceInstance instance, String region) {
        return instance.toBuilder().region(region).build();
    }
}
