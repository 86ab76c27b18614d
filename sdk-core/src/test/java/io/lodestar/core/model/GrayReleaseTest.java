package io.lodestar.core.model;

import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GrayReleaseTest {
    private static GrayRelease release(String content) {
        return new GrayRelease("app/db.yaml", content, ConfigFormat.YAML, "hash", GrayRule.percent(10), "salt", 3, 1,
                Instant.EPOCH, Instant.EPOCH);
    }

    @Test
    void toStringLeavesTheContentOut() {
        assertThat(release("password: s3cret").toString()).doesNotContain("s3cret").contains("rule=10%");
    }

    @Test
    void appliesToTheInstancesItsRuleSelectsWithItsSalt() {
        GrayRelease release = new GrayRelease("app", "a=1", ConfigFormat.PROPERTIES, "hash",
                GrayRule.metadata("zone", "eu-1"), "salt", 1, 1, Instant.EPOCH, Instant.EPOCH);

        assertThat(release.appliesTo(new InstanceIdentity("a", Map.of("zone", "eu-1")))).isTrue();
        assertThat(release.appliesTo(new InstanceIdentity("a", Map.of("zone", "eu-2")))).isFalse();
    }

    @Test
    void anInvalidFieldIsRefusedNamingIt() {
        assertThatThrownBy(() -> release(null)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("content must be");
    }
}
