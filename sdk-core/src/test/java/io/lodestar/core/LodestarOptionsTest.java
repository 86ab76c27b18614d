package io.lodestar.core;

import io.lodestar.core.model.Namespace;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LodestarOptionsTest {
    private static final String URI = "redis://localhost:6379";
    private static final String SECRET = "s3cret";

    @Test
    void unsetOptionsHaveTheDocumentedDefaults() {
        LodestarOptions options = LodestarOptions.builder(URI).build();

        assertThat(options.redisUri()).isEqualTo(URI);
        assertThat(options.namespace()).isEqualTo(Namespace.DEFAULT);
        assertThat(options.namespace().name()).isEqualTo("default");
        assertThat(options.commandTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.sweepInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.reconcileInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.idleViewTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(options.viewTopicLimit()).isEqualTo(100_000);
        assertThat(options.configHistoryLimit()).isEqualTo(20);
        assertThat(options.configSnapshotDirectory()).isEmpty();
        assertThat(options.deregisterOnClose()).isTrue();
        assertThat(options.clientName()).isEqualTo("lodestar");
        assertThat(options.recordAppliedConfigs()).isTrue();
    }

    @Test
    void keepsEverySetOption() {
        LodestarOptions options = LodestarOptions.builder(URI)
                .namespace("staging")
                .commandTimeout(Duration.ofMillis(750))
                .sweepInterval(Duration.ofSeconds(2))
                .reconcileInterval(Duration.ofSeconds(30))
                .idleViewTimeout(Duration.ofMinutes(1))
                .viewTopicLimit(500)
                .configHistoryLimit(5)
                .configSnapshotDirectory(Path.of("/var/lib/lodestar"))
                .deregisterOnClose(false)
                .clientName("orders-app")
                .build();

        assertThat(options.namespace()).isEqualTo(Namespace.of("staging"));
        assertThat(options.commandTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(options.sweepInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.reconcileInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.idleViewTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(options.viewTopicLimit()).isEqualTo(500);
        assertThat(options.configHistoryLimit()).isEqualTo(5);
        assertThat(options.configSnapshotDirectory()).contains(Path.of("/var/lib/lodestar"));
        assertThat(options.deregisterOnClose()).isFalse();
        assertThat(options.clientName()).isEqualTo("orders-app");
    }

    @Test
    void reportsEveryInvalidOptionAtOnce() {
        LodestarOptions.Builder builder = LodestarOptions.builder("http://localhost")
                .namespace("bad namespace")
                .commandTimeout(Duration.ZERO)
                .sweepInterval(Duration.ofSeconds(-1))
                .reconcileInterval(null)
                .idleViewTimeout(Duration.ZERO)
                .viewTopicLimit(9)
                .configHistoryLimit(0)
                .clientName("");

        InvalidArgumentException e = InvalidArguments.thrownBy(builder::build);

        assertThat(e.violations()).extracting(Violation::field).containsExactly("redisUri", "namespace",
                "commandTimeout", "sweepInterval", "reconcileInterval", "idleViewTimeout", "viewTopicLimit",
                "configHistoryLimit", "clientName");
        assertThat(e).hasMessageContaining("commandTimeout must be between PT0.01S and PT24H, but was PT0S")
                .hasMessageContaining("sweepInterval must be between PT0.1S and PT24H, but was PT-1S")
                .hasMessageContaining("reconcileInterval must be between PT0.1S and PT24H, but was null")
                .hasMessageContaining("configHistoryLimit must be between 1 and 1000, but was 0")
                .hasMessageContaining("clientName must be 1-32 characters of [A-Za-z0-9._-], but was ''");
    }

    @Nested
    class RedisUri {
        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"redis://localhost:6379", "rediss://user:pass@redis.example.com:6380/2",
                "redis-sentinel://s1:26379,s2:26379#mymaster", "rediss-sentinel://s1:26379#mymaster",
                "redis-cluster://h1:7000,h2:7001", "rediss-cluster://h1:7000", "redis-socket:///tmp/redis.sock",
                "REDIS://LOCALHOST"})
        void acceptsTheRedisSchemes(String uri) {
            assertThat(LodestarOptions.builder(uri).build().redisUri()).isEqualTo(uri);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(ints = {Integer.MIN_VALUE, 0, 9, 10_000_001})
        void rejectsAViewTopicLimitOutsideItsRange(int value) {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).viewTopicLimit(value).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("viewTopicLimit must be between 10 and 10000000, but was " + value);
        }

        @ParameterizedTest(name = "''{0}''")
        @NullAndEmptySource
        @ValueSource(strings = {"http://localhost:6379", "localhost:6379", "redis://", "redis:/localhost",
                "redis+tls://localhost", "tcp://localhost:6379", " redis://localhost"})
        void rejectsAnythingElse(String uri) {
            assertThatThrownBy(() -> LodestarOptions.builder(uri).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageStartingWith("redisUri must be a URI of the form redis://, rediss://, "
                            + "redis-sentinel://, rediss-sentinel://, redis-cluster://, rediss-cluster:// or "
                            + "redis-socket:// followed by the address, but was ");
        }

        @Test
        void showsAMissingUriAsNull() {
            assertThatThrownBy(() -> LodestarOptions.builder(null).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageEndingWith("but was null");
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"http://user:s3cret@localhost:6379", "user:s3cret@localhost:6379",
                "redis:/:s3cret@localhost", "http://localhost:6379?password=s3cret"})
        void neverPutsThePasswordOfARejectedUriInTheMessage(String uri) {
            InvalidArgumentException e = InvalidArguments.thrownBy(() -> LodestarOptions.builder(uri).build());

            assertThat(e).hasMessageNotContaining(SECRET);
            assertThat(e.violations()).singleElement()
                    .satisfies(v -> assertThat(v.value()).doesNotContain(SECRET));
        }
    }

    @Nested
    class Secrets {
        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"redis://user:s3cret@h:6379", "redis://:s3cret@h", "redis://s3cret@h:6379/0",
                "rediss://h:6380?password=s3cret", "redis://h:6379/0?timeout=5s&password=s3cret&ssl=true",
                "redis://h?PASSWORD=s3cret", "redis-sentinel://:s3cret@s1:26379,s2:26379#mymaster",
                "redis-cluster://user:s3cret@h1:7000,user:s3cret@h2:7001",
                "redis://user:s3@cret@h:6379", "redis://user:s3cret/x@h:6379", "redis://:s3#cret@h"})
        void toStringNeverContainsThePassword(String uri) {
            LodestarOptions options = LodestarOptions.builder(uri).build();

            assertThat(options.toString()).doesNotContain(SECRET).doesNotContain("s3").contains("***");
            assertThat(options.redactedRedisUri()).doesNotContain("s3").doesNotContain("cret");
            assertThat(options.redisUri()).isEqualTo(uri);
        }

        @Test
        void redactKeepsSchemeHostPortAndDatabase() {
            assertThat(LodestarOptions.redact("redis://user:s3cret@h:6379/2")).isEqualTo("redis://***@h:6379/2");
            assertThat(LodestarOptions.redact("redis://:s3cret@h")).isEqualTo("redis://***@h");
            assertThat(LodestarOptions.redact("redis://h:6379?password=s3cret&ssl=true"))
                    .isEqualTo("redis://h:6379?password=***&ssl=true");
        }

        @Test
        void redactHidesEverythingUpToTheLastAt() {
            assertThat(LodestarOptions.redact("redis://user:p@ss@h:6379")).isEqualTo("redis://***@h:6379");
        }

        @Test
        void redactHidesUserInfoOfAUriWithoutScheme() {
            assertThat(LodestarOptions.redact("user:s3cret@h:6379")).isEqualTo("***@h:6379");
        }

        @Test
        void redactLeavesAUriWithoutSecretsAlone() {
            assertThat(LodestarOptions.redact("redis-cluster://h1:7000,h2:7001"))
                    .isEqualTo("redis-cluster://h1:7000,h2:7001");
            assertThat(LodestarOptions.redact(null)).isNull();
        }

        @Test
        void toStringShowsTheOptions() {
            LodestarOptions options = LodestarOptions.builder("redis://:s3cret@h:6379").namespace("prod").build();

            assertThat(options.toString()).isEqualTo("LodestarOptions[redisUri=redis://***@h:6379, namespace=prod, "
                    + "commandTimeout=PT5S, sweepInterval=PT5S, reconcileInterval=PT1M, idleViewTimeout=PT10M, "
                    + "viewTopicLimit=100000, configHistoryLimit=20, configSnapshotDirectory=null, serviceSnapshotDirectory=null, deregisterOnClose=true, "
                    + "clientName=lodestar, tlsTrustedCertificates=null, startupMode=FAIL_FAST, preloadServices=[], identity=null, "
                    + "configKeys=null, encryptedConfigPlaceholders=false, recordAppliedConfigs=true, region=null, remoteRegions=[], "
                    + "regionFailoverThreshold=1]");
        }

        @Test
        void toStringNamesAKeyProvidersClassNeverWhatItPrints() {
            ConfigKeyProvider provider = new ConfigKeyProvider() {
                @Override
                public String primaryKeyId() {
                    return "k1";
                }

                @Override
                public Optional<ConfigKey> key(String keyId) {
                    return Optional.empty();
                }

                @Override
                public String toString() {
                    return "key material " + SECRET;
                }
            };

            LodestarOptions options = LodestarOptions.builder("redis://h:6379")
                    .configKeys(ConfigKeys.provider(provider)).build();

            assertThat(options.toString()).doesNotContain(SECRET)
                    .contains("configKeys=Provided[" + provider.getClass().getName() + "]");
        }
    }

    @Nested
    class TlsTrust {
        @Test
        void aReadablePemFileIsKept(@TempDir Path dir) throws IOException {
            Path pem = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");

            LodestarOptions options = LodestarOptions.builder("rediss://h:6380").tlsTrustedCertificates(pem).build();

            assertThat(options.tlsTrustedCertificates()).contains(pem);
        }

        @Test
        void aMissingFileIsRejectedWithTheRule(@TempDir Path dir) {
            Path missing = dir.resolve("missing.pem");

            assertThatThrownBy(() -> LodestarOptions.builder("rediss://h:6380").tlsTrustedCertificates(missing)
                    .build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("tlsTrustedCertificates must be a readable PEM file, or null, but was");
        }

        @Test
        void noTrustFileMeansTheJvmDefault() {
            assertThat(LodestarOptions.builder("rediss://h:6380").build().tlsTrustedCertificates()).isEmpty();
        }
    }

    @Nested
    class Limits {
        @ParameterizedTest(name = "{0}")
        @ValueSource(ints = {1, 1000})
        void acceptsTheHistoryLimitBounds(int limit) {
            assertThat(LodestarOptions.builder(URI).configHistoryLimit(limit).build().configHistoryLimit())
                    .isEqualTo(limit);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(ints = {-1, 0, 1001})
        void rejectsAHistoryLimitOutsideTheBounds(int limit) {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).configHistoryLimit(limit).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("configHistoryLimit must be between 1 and 1000, but was " + limit);
        }

        @Test
        void acceptsAClientNameOf32Characters() {
            String name = "n".repeat(32);

            assertThat(LodestarOptions.builder(URI).clientName(name).build().clientName()).isEqualTo(name);
        }

        @ParameterizedTest(name = "''{0}''")
        @NullAndEmptySource
        @ValueSource(strings = {"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn", "my app", "app:1", "app{1}", "appé"})
        void rejectsABadClientName(String name) {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).clientName(name).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageStartingWith("clientName must be 1-32 characters of [A-Za-z0-9._-], but was ");
        }

        @Test
        void acceptsTheShortestDurationsOfEachRange() {
            LodestarOptions options = LodestarOptions.builder(URI).commandTimeout(Duration.ofMillis(10))
                    .sweepInterval(Duration.ofMillis(100)).reconcileInterval(Duration.ofMillis(100))
                    .idleViewTimeout(Duration.ofMillis(100)).build();

            assertThat(options.commandTimeout()).isEqualTo(LodestarOptions.MIN_COMMAND_TIMEOUT);
            assertThat(options.sweepInterval()).isEqualTo(LodestarOptions.MIN_INTERVAL);
            assertThat(options.idleViewTimeout()).isEqualTo(LodestarOptions.MIN_INTERVAL);
        }

        @Test
        void acceptsADayForEveryDuration() {
            Duration day = Duration.ofDays(1);

            assertThatCode(() -> LodestarOptions.builder(URI).commandTimeout(day).sweepInterval(day)
                    .reconcileInterval(day).idleViewTimeout(day).build()).doesNotThrowAnyException();
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"PT0.000000001S", "PT0.009999999S", "PT24H0.000000001S", "PT2562047788015215H"})
        void rejectsACommandTimeoutOutsideItsRange(String value) {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).commandTimeout(Duration.parse(value)).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("commandTimeout must be between PT0.01S and PT24H, but was " + Duration.parse(value));
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"PT0.000000001S", "PT0.099S", "PT24H0.001S", "PT2562047788015215H"})
        void rejectsIntervalsOutsideTheirRange(String value) {
            Duration duration = Duration.parse(value);

            InvalidArgumentException e = InvalidArguments.thrownBy(() -> LodestarOptions.builder(URI)
                    .sweepInterval(duration).reconcileInterval(duration).build());

            assertThat(e.violations()).extracting(Violation::message).containsExactly(
                    "sweepInterval must be between PT0.1S and PT24H, but was " + duration,
                    "reconcileInterval must be between PT0.1S and PT24H, but was " + duration);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"PT0.000000001S", "PT0.099S", "PT24H0.001S", "PT2562047788015215H"})
        void rejectsAnIdleViewTimeoutOutsideItsRange(String value) {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).idleViewTimeout(Duration.parse(value)).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("idleViewTimeout must be between PT0.1S and PT24H, but was " + Duration.parse(value));
        }

        @ParameterizedTest(name = "''{0}''")
        @NullAndEmptySource
        @ValueSource(strings = {"bad namespace", "-leading", "ns:1"})
        void rejectsABadNamespace(String namespace) {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).namespace(namespace).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageStartingWith("namespace must be 1-64 characters of [A-Za-z0-9._-]");
        }

        @Test
        void allowsNoSnapshotDirectory() {
            LodestarOptions options = LodestarOptions.builder(URI).configSnapshotDirectory(null).build();

            assertThat(options.configSnapshotDirectory()).isEmpty();
        }
    }

    @Nested
    class Regions {
        @Test
        void withoutARegionNoneIsNamedAndHomeAloneAnswers() {
            LodestarOptions options = LodestarOptions.builder(URI).build();

            assertThat(options.region()).isEmpty();
            assertThat(options.remoteRegions()).isEmpty();
            assertThat(options.regionFailoverThreshold()).isEqualTo(1);
        }

        @Test
        void keepsTheRemoteRegionsInTheOrderNamed() {
            LodestarOptions options = LodestarOptions.builder(URI).region("eu").remoteRegion("us", "redis://us:6379")
                    .remoteRegion("ap", "rediss://ap:6380").regionFailoverThreshold(2).build();

            assertThat(options.region()).contains("eu");
            assertThat(options.remoteRegions().keySet()).containsExactly("us", "ap");
            assertThat(options.remoteRegions().get("ap").redisUri()).isEqualTo("rediss://ap:6380");
            assertThat(options.regionFailoverThreshold()).isEqualTo(2);
        }

        @Test
        void toStringNeverContainsARemoteRegionsPassword() {
            LodestarOptions options = LodestarOptions.builder(URI).region("eu")
                    .remoteRegion("us", "redis://reader:" + SECRET + "@us:6379").build();

            assertThat(options.toString()).doesNotContain(SECRET)
                    .contains("remoteRegions=[RemoteRegion[name=us, redisUri=redis://***@us:6379");
            assertThat(options.remoteRegions().get("us").toString()).doesNotContain(SECRET);
        }

        @Test
        void aRemoteRegionsReaderHasItsUriItsNameNoRemotesAndStartsOffline() {
            LodestarOptions options = LodestarOptions.builder(URI).namespace("prod").region("eu")
                    .remoteRegion("us", "redis://us:6379").preloadServices(List.of("orders")).build();

            LodestarOptions reader = options.forRemoteRegion(options.remoteRegions().get("us"));

            assertThat(reader.redisUri()).isEqualTo("redis://us:6379");
            assertThat(reader.region()).contains("us");
            assertThat(reader.namespace()).isEqualTo(Namespace.of("prod"));
            assertThat(reader.remoteRegions()).isEmpty();
            assertThat(reader.preloadServices()).isEmpty();
            assertThat(reader.startupMode()).isEqualTo(StartupMode.OFFLINE);
        }

        @Test
        void reportsEveryBrokenRegionRuleAtOnce() {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).remoteRegion("bad name", "http://:" + SECRET + "@x")
                    .remoteRegion("us", "redis://us:6379").remoteRegion("us", "redis://us2:6379")
                    .regionFailoverThreshold(0).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("regionFailoverThreshold must be between 1 and 10000, but was 0")
                    .hasMessageContaining("region must be set when remote regions are named")
                    .hasMessageContaining("regions must be named once, but was 'us'")
                    .hasMessageContaining("regions must be 1-64 characters of [A-Za-z0-9._-]")
                    .hasMessageContaining("regions.bad name.redisUri must be a URI of the form redis://")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
        }

        @Test
        void aRemoteRegionMayNotBeTheHomeRegion() {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).region("eu").remoteRegion("eu", URI).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("regions.eu must be another region than the home region, but was 'eu'");
        }

        @Test
        void aBadHomeRegionIsRejectedWithTheRule() {
            assertThatThrownBy(() -> LodestarOptions.builder(URI).region("eu/west").build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageStartingWith("region must be 1-64 characters of [A-Za-z0-9._-]");
        }
    }
}
