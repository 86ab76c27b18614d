package io.lodestar.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up options: how a client starts without Redis, and what its view loads before the first request. */
class StartupOptionsTest {
    private static final String URI = "redis://localhost:6379";

    @Test
    void byDefaultAClientFailsFastAndPreloadsNothing() {
        LodestarOptions options = LodestarOptions.builder(URI).build();

        assertThat(options.startupMode()).isEqualTo(StartupMode.FAIL_FAST);
        assertThat(options.preloadServices()).isEmpty();
    }

    @Test
    void keepsTheStartupModeAndAnImmutableCopyOfThePreloadedServices() {
        List<String> services = new ArrayList<>(List.of("orders", "billing"));

        LodestarOptions options = LodestarOptions.builder(URI).startupMode(StartupMode.OFFLINE)
                .preloadServices(services).build();
        services.add("late");

        assertThat(options.startupMode()).isEqualTo(StartupMode.OFFLINE);
        assertThat(options.preloadServices()).containsExactlyInAnyOrder("orders", "billing");
        assertThat(options.toString()).contains("startupMode=OFFLINE", "orders");
    }

    @Test
    void namesEveryInvalidPreloadedServiceAndAMissingMode() {
        LodestarOptions.Builder builder = LodestarOptions.builder(URI).startupMode(null)
                .preloadServices(Arrays.asList("orders", "bad id", null));

        InvalidArgumentException e = InvalidArguments.thrownBy(builder::build);

        assertThat(e.violations()).extracting(Violation::field)
                .containsExactly("startupMode", "preloadServices[1]", "preloadServices[2]");
        assertThat(e).hasMessageContaining("preloadServices[1] must be");
    }

    @Test
    void settingsCarryTheStartupOptions() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri(URI);
        settings.setStartupMode(StartupMode.OFFLINE);
        settings.setPreloadServices(List.of("orders"));

        LodestarOptions options = settings.toOptions();

        assertThat(options.startupMode()).isEqualTo(StartupMode.OFFLINE);
        assertThat(options.preloadServices()).containsExactly("orders");
    }
}
