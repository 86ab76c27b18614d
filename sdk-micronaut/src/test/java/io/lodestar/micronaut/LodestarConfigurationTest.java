package io.lodestar.micronaut;

import io.lodestar.core.StartupMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How {@code lodestar.fail-fast} and {@code lodestar.startup-mode} decide how the client starts. */
class LodestarConfigurationTest {

    @Test
    void withoutAStartupModeTheClientStartsOfflineUnlessFailFast() {
        LodestarConfiguration configuration = configuration();
        assertThat(configuration.toOptions().startupMode()).isEqualTo(StartupMode.OFFLINE);

        configuration.setFailFast(true);

        assertThat(configuration.toOptions().startupMode()).isEqualTo(StartupMode.FAIL_FAST);
    }

    @Test
    void anExplicitStartupModeWinsOverFailFast() {
        LodestarConfiguration failFastClient = configuration();
        failFastClient.setStartupMode(StartupMode.FAIL_FAST);
        LodestarConfiguration offlineClient = configuration();
        offlineClient.setFailFast(true);
        offlineClient.setStartupMode(StartupMode.OFFLINE);

        assertThat(failFastClient.toOptions().startupMode()).isEqualTo(StartupMode.FAIL_FAST);
        assertThat(offlineClient.toOptions().startupMode()).isEqualTo(StartupMode.OFFLINE);
    }

    private static LodestarConfiguration configuration() {
        LodestarConfiguration configuration = new LodestarConfiguration();
        configuration.setRedisUri("redis://127.0.0.1:6390");
        return configuration;
    }
}
