package io.lodestar.core;

import io.lodestar.core.model.InstanceIdentity;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdentityOptionsTest {
    @Test
    void withoutAnIdentityTheOptionsHaveNone() {
        assertThat(LodestarOptions.builder("redis://localhost").build().identity()).isEmpty();
    }

    @Test
    void settingsWithAnIdentityInstanceIdGiveTheOptionsThatIdentity() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://localhost");
        settings.setIdentityInstanceId("batch-1");
        settings.setIdentityMetadata(Map.of("zone", "eu-1"));

        assertThat(settings.toOptions().identity())
                .contains(new InstanceIdentity("batch-1", Map.of("zone", "eu-1")));
    }

    @Test
    void anInvalidIdentityInstanceIdIsRefusedNamingIt() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://localhost");
        settings.setIdentityInstanceId("has space");

        assertThatThrownBy(settings::toOptions).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("instanceId must be").hasMessageContaining("has space");
    }
}
