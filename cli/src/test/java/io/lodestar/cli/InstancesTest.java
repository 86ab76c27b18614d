package io.lodestar.cli;

import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Metadata as {@code register --metadata KEY=VALUE} takes it. */
class InstancesTest {
    @Test
    void keyValueWordsBecomeMetadataInOrderAndTheValueMayHoldEqualsOrBeEmpty() {
        assertThat(Instances.metadata(List.of("zone=eu-1", "dsn=a=b", "empty=")))
                .containsExactly(entry("zone", "eu-1"), entry("dsn", "a=b"), entry("empty", ""));
    }

    @Test
    void aWordWithoutAKeyIsNamedWithItsRule() {
        assertThatThrownBy(() -> Instances.metadata(List.of("zone", "=x")))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("metadata must be KEY=VALUE with a non-empty KEY, but was 'zone'; "
                        + "metadata must be KEY=VALUE with a non-empty KEY, but was '=x'");
    }

    @Test
    void aKeyGivenTwiceIsRefusedRatherThanOneValueDropped() {
        assertThatThrownBy(() -> Instances.metadata(List.of("zone=eu-1", "zone=eu-2")))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("metadata[zone] must be given once, but was 'eu-1' and 'eu-2'");
    }

    private static Map.Entry<String, String> entry(String key, String value) {
        return Map.entry(key, value);
    }
}
