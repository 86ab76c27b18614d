package io.lodestar.core;

import io.lodestar.core.model.Namespace;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LodestarSettingsTest {
    @Test
    void defaultsEqualTheOptionDefaultsExceptAnApplicationStartsOffline() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://localhost:6379");

        LodestarOptions fromSettings = settings.toOptions();

        LodestarOptions defaults = LodestarOptions.builder("redis://localhost:6379")
                .startupMode(StartupMode.OFFLINE).build();
        assertThat(fromSettings).hasToString(defaults.toString());
        assertThat(settings.isFailFast()).isFalse();
        assertThat(settings.getNamespace()).isEqualTo(Namespace.DEFAULT.name());
        assertThat(settings.getCommandTimeout()).isEqualTo(LodestarOptions.DEFAULT_COMMAND_TIMEOUT);
        assertThat(settings.getSweepInterval()).isEqualTo(LodestarOptions.DEFAULT_SWEEP_INTERVAL);
        assertThat(settings.getReconcileInterval()).isEqualTo(LodestarOptions.DEFAULT_RECONCILE_INTERVAL);
        assertThat(settings.getIdleViewTimeout()).isEqualTo(LodestarOptions.DEFAULT_IDLE_VIEW_TIMEOUT);
        assertThat(settings.getViewTopicLimit()).isEqualTo(LodestarOptions.DEFAULT_VIEW_TOPIC_LIMIT);
        assertThat(settings.getConfigHistoryLimit()).isEqualTo(LodestarOptions.DEFAULT_CONFIG_HISTORY_LIMIT);
        assertThat(settings.getConfigSnapshotDirectory()).isNull();
        assertThat(settings.isDeregisterOnClose()).isTrue();
        assertThat(settings.getClientName()).isEqualTo(LodestarOptions.DEFAULT_CLIENT_NAME);
    }

    @Test
    void failFastMakesTheClientFailFastUnlessAStartupModeIsSet() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://localhost:6379");

        settings.setFailFast(true);
        assertThat(settings.toOptions().startupMode()).isEqualTo(StartupMode.FAIL_FAST);

        settings.setStartupMode(StartupMode.OFFLINE);
        assertThat(settings.toOptions().startupMode()).isEqualTo(StartupMode.OFFLINE);
    }

    @Test
    void toOptionsMapsEveryField() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("rediss://redis.example.com:6380");
        settings.setNamespace("staging");
        settings.setCommandTimeout(Duration.ofMillis(1500));
        settings.setSweepInterval(Duration.ofSeconds(3));
        settings.setReconcileInterval(Duration.ofSeconds(45));
        settings.setIdleViewTimeout(Duration.ofMinutes(2));
        settings.setViewTopicLimit(2_000);
        settings.setConfigHistoryLimit(7);
        settings.setConfigSnapshotDirectory(Path.of("/tmp/lodestar"));
        settings.setDeregisterOnClose(false);
        settings.setClientName("billing");

        LodestarOptions options = settings.toOptions();

        assertThat(options.redisUri()).isEqualTo("rediss://redis.example.com:6380");
        assertThat(options.namespace()).isEqualTo(Namespace.of("staging"));
        assertThat(options.commandTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(options.sweepInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.reconcileInterval()).isEqualTo(Duration.ofSeconds(45));
        assertThat(options.idleViewTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(options.viewTopicLimit()).isEqualTo(2_000);
        assertThat(options.configHistoryLimit()).isEqualTo(7);
        assertThat(options.configSnapshotDirectory()).contains(Path.of("/tmp/lodestar"));
        assertThat(options.deregisterOnClose()).isFalse();
        assertThat(options.clientName()).isEqualTo("billing");
    }

    @Test
    void gettersReturnWhatWasSet() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://h");
        settings.setConfigSnapshotDirectory(Path.of("snapshots"));

        assertThat(settings.getRedisUri()).isEqualTo("redis://h");
        assertThat(settings.getConfigSnapshotDirectory()).isEqualTo(Path.of("snapshots"));
    }

    @Test
    void toOptionsReportsEveryInvalidSetting() {
        LodestarSettings settings = new LodestarSettings();
        settings.setNamespace("");
        settings.setSweepInterval(Duration.ZERO);
        settings.setConfigHistoryLimit(1001);

        InvalidArgumentException e = InvalidArguments.thrownBy(settings::toOptions);

        assertThat(e.violations()).extracting(Violation::field)
                .containsExactly("redisUri", "namespace", "sweepInterval", "configHistoryLimit");
        assertThat(e).hasMessageContaining("but was null")
                .hasMessageContaining("configHistoryLimit must be between 1 and 1000, but was 1001");
    }

    @Test
    void aMissingRedisUriIsReported() {
        assertThatThrownBy(() -> new LodestarSettings().toOptions())
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("redisUri must be a URI of the form redis://")
                .hasMessageEndingWith("but was null");
    }

    @Test
    void toStringNeverContainsThePassword() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://user:s3cret@h:6379?password=s3cret");

        assertThat(settings.toString()).doesNotContain("s3cret")
                .isEqualTo("LodestarSettings[redisUri=redis://***@h:6379?password=***, namespace=default]");
    }

    @Test
    void regionsBecomeRemoteRegionsInTheOrderConfigured() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://eu:6379");
        settings.setRegion("eu");
        settings.getRegions().put("us", region("redis://reader:s3cret@us:6379"));
        settings.getRegions().put("ap", region("redis://ap:6379"));
        settings.setRegionFailoverThreshold(3);

        LodestarOptions options = settings.toOptions();

        assertThat(options.region()).contains("eu");
        assertThat(options.remoteRegions().keySet()).containsExactly("us", "ap");
        assertThat(options.remoteRegions().get("us").redisUri()).isEqualTo("redis://reader:s3cret@us:6379");
        assertThat(options.regionFailoverThreshold()).isEqualTo(3);
        assertThat(settings.getRegions().get("us").toString()).doesNotContain("s3cret");
    }

    @Test
    void aRegionWithoutAUriIsReportedUnderItsName() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://eu:6379");
        settings.setRegion("eu");
        settings.getRegions().put("us", new LodestarSettings.Region());

        assertThatThrownBy(settings::toOptions).isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("regions.us.redisUri must be a URI of the form redis://");
    }

    private static LodestarSettings.Region region(String uri) {
        LodestarSettings.Region region = new LodestarSettings.Region();
        region.setRedisUri(uri);
        return region;
    }

    @Test
    void aFrameworkSubclassIsNamedInToString() {
        LodestarSettings settings = new LodestarProperties();

        assertThat(settings.toString()).isEqualTo("LodestarProperties[redisUri=null, namespace=default]");
    }

    /** What Spring Boot and Micronaut do: subclass and annotate. */
    static class LodestarProperties extends LodestarSettings {
    }

    @Test
    void aKeysetFileOrAnEnvironmentVariableBecomesTheConfigKeys() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://localhost:6379");

        settings.setConfigKeysetFile(Path.of("/etc/lodestar/keyset.json"));
        assertThat(settings.toOptions().configKeys()).contains(ConfigKeys.keysetFile(Path.of("/etc/lodestar/keyset.json")));

        settings.setConfigKeysetFile(null);
        settings.setConfigKeysetEnvironmentVariable("LODESTAR_KEYSET");
        assertThat(settings.toOptions().configKeys()).contains(ConfigKeys.environmentVariable("LODESTAR_KEYSET"));
    }

    @Test
    void aKeysetFileAndAnEnvironmentVariableTogetherAreRefused() {
        LodestarSettings settings = new LodestarSettings();
        settings.setRedisUri("redis://localhost:6379");
        settings.setConfigKeysetFile(Path.of("/etc/lodestar/keyset.json"));
        settings.setConfigKeysetEnvironmentVariable("LODESTAR_KEYSET");

        assertThatThrownBy(settings::toOptions).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configKeysetEnvironmentVariable must be unset when configKeysetFile is set");
    }
}
