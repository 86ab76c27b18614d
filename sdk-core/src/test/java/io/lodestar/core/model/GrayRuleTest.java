package io.lodestar.core.model;

import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GrayRuleTest {
    private static final String SALT = "release-1";
    private static final Set<InstanceIdentity> THOUSAND = IntStream.range(0, 1000)
            .mapToObj(i -> new InstanceIdentity("orders-" + i, Map.of())).collect(Collectors.toSet());

    private static Set<String> selected(GrayRule rule, String salt) {
        return THOUSAND.stream().filter(identity -> rule.matches(identity, salt)).map(InstanceIdentity::instanceId)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void growingThePercentageKeepsEveryInstanceThatWasIn() {
        Set<String> tenPercent = selected(GrayRule.percent(10), SALT);
        Set<String> fiftyPercent = selected(GrayRule.percent(50), SALT);

        assertThat(fiftyPercent).containsAll(tenPercent);
        assertThat(tenPercent.size()).as("about 10 % of 1000").isBetween(70, 130);
        assertThat(fiftyPercent.size()).as("about 50 % of 1000").isBetween(440, 560);
    }

    @Test
    void anotherReleaseSaltPicksOtherInstances() {
        assertThat(selected(GrayRule.percent(10), "release-2")).isNotEqualTo(selected(GrayRule.percent(10), SALT));
    }

    @Test
    void aMetadataRuleSelectsExactlyTheInstancesWithAMatchingValue() {
        GrayRule rule = GrayRule.parse("zone=eu-1; version in (2.3, 2.4)");

        assertThat(rule.matches(new InstanceIdentity("a", Map.of("zone", "eu-1", "version", "2.3")), SALT)).isTrue();
        assertThat(rule.matches(new InstanceIdentity("b", Map.of("zone", "eu-1", "version", "2.4")), SALT)).isTrue();
        assertThat(rule.matches(new InstanceIdentity("c", Map.of("zone", "eu-2", "version", "2.3")), SALT)).isFalse();
        assertThat(rule.matches(new InstanceIdentity("d", Map.of("zone", "eu-1", "version", "2.5")), SALT)).isFalse();
        assertThat(rule.matches(new InstanceIdentity("e", Map.of("zone", "eu-1")), SALT)).isFalse();
    }

    @Test
    void listedInstancesAreInWhateverTheirMetadata() {
        GrayRule rule = GrayRule.parse("zone=eu-1; instance in (orders-7)");

        assertThat(rule.matches(new InstanceIdentity("orders-7", Map.of("zone", "us-1")), SALT)).isTrue();
        assertThat(rule.matches(new InstanceIdentity("orders-8", Map.of("zone", "us-1")), SALT)).isFalse();
        assertThat(GrayRule.instances("orders-7").matches(new InstanceIdentity("orders-8", Map.of()), SALT)).isFalse();
    }

    @Test
    void theTextFormReadsBackToAnEqualRule() {
        GrayRule rule = GrayRule.metadata("zone", "eu-1").and("version", "2.3", "2.4").withPercent(25);

        assertThat(rule.toString()).isEqualTo("version in (2.3, 2.4); zone=eu-1; 25%");
        assertThat(GrayRule.parse(rule.toString())).isEqualTo(rule);
        assertThat(GrayRule.parse("10%; instance in (a, b)").toString()).isEqualTo("10%; instance in (a, b)");
    }

    @Test
    void aPercentageOutsideZeroToHundredIsRefusedNamingIt() {
        assertThatThrownBy(() -> GrayRule.percent(101)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("percent must be between 0 and 100, but was 101");
    }

    @Test
    void aClauseThatIsNotUnderstoodIsRefusedNamingIt() {
        assertThatThrownBy(() -> GrayRule.parse("zone ~ eu")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("rule must be clauses like 'zone=eu-1'").hasMessageContaining("zone ~ eu");
    }

    @Test
    void aRuleThatSelectsNothingIsRefused() {
        assertThatThrownBy(() -> GrayRule.parse(" ; ")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("rule must be a rule that selects instances by metadata, instance id or"
                        + " percentage");
    }

    @Test
    void anInvalidInstanceIdIsRefusedNamingIt() {
        assertThatThrownBy(() -> GrayRule.instances("bad id")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("instanceIds must be").hasMessageContaining("bad id");
    }
}
