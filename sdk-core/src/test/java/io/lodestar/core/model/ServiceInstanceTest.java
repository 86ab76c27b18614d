package io.lodestar.core.model;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.InvalidArguments;
import io.lodestar.core.Violation;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServiceInstanceTest {
    private static final String HOST_RULE = "a host name (dot-separated labels of [A-Za-z0-9-], none empty or"
            + " starting or ending with '-') or an IP address (IPv6 with or without brackets) of 1-253 characters";

    /** A valid instance to vary one field of. */
    private static ServiceInstance.Builder orders() {
        return ServiceInstance.builder("orders", "orders-1").host("10.0.0.1").port(8080);
    }

    @Nested
    class Building {
        @Test
        void appliesTheDefaults() {
            ServiceInstance instance = orders().build();

            assertThat(instance.weight()).isEqualTo(100);
            assertThat(instance.status()).isEqualTo(InstanceStatus.UP);
            assertThat(instance.ttl()).isEqualTo(Duration.ofSeconds(30));
            assertThat(instance.ephemeral()).isTrue();
            assertThat(instance.secure()).isFalse();
            assertThat(instance.metadata()).isEmpty();
            assertThat(instance.registeredAt()).isNull();
            assertThat(instance.region()).isNull();
        }

        @Test
        void toBuilderKeepsTheRegion() {
            ServiceInstance original = orders().region("eu-west").build();

            assertThat(original.toBuilder().build().region()).isEqualTo("eu-west");
        }

        @Test
        void rejectsABadRegion() {
            assertThatThrownBy(() -> orders().region("eu west").build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageStartingWith("region must be 1-64 characters of [A-Za-z0-9._-]");
        }

        @Test
        void persistentMeansAZeroTtlThatNeverExpires() {
            ServiceInstance instance = orders().persistent().build();

            assertThat(instance.ttl()).isEqualTo(Duration.ZERO);
            assertThat(instance.ephemeral()).isFalse();
        }

        @Test
        void keepsEverySetField() {
            Instant registeredAt = Instant.parse("2024-05-01T10:15:30Z");

            ServiceInstance instance = ServiceInstance.builder("orders", "orders-2").host("orders.internal").port(443)
                    .secure(true).weight(250).status(InstanceStatus.STARTING).metadata("zone", "eu-1")
                    .ttl(Duration.ofSeconds(10)).registeredAt(registeredAt).build();

            assertThat(instance).isEqualTo(new ServiceInstance("orders", "orders-2", "orders.internal", 443, true, 250,
                    InstanceStatus.STARTING, Map.of("zone", "eu-1"), Duration.ofSeconds(10), registeredAt));
        }

        @Test
        void toBuilderRoundTripsToAnEqualInstance() {
            ServiceInstance original = orders().secure(true).weight(7).status(InstanceStatus.DOWN)
                    .metadata("zone", "eu-1").metadata("version", "1.4.2").ttl(Duration.ofMinutes(2))
                    .registeredAt(Instant.parse("2024-05-01T10:15:30Z")).build();

            ServiceInstance copy = original.toBuilder().build();

            assertThat(copy).isEqualTo(original).isNotSameAs(original);
        }

        @Test
        void toBuilderChangesOnlyWhatIsSet() {
            ServiceInstance original = orders().metadata("zone", "eu-1").build();

            ServiceInstance drained = original.toBuilder().status(InstanceStatus.OUT_OF_SERVICE).build();

            assertThat(drained.status()).isEqualTo(InstanceStatus.OUT_OF_SERVICE);
            assertThat(drained.toBuilder().status(InstanceStatus.UP).build()).isEqualTo(original);
        }

        @Test
        void nullMetadataInTheBuilderMeansNone() {
            ServiceInstance instance = orders().metadata("zone", "eu-1").metadata(null).build();

            assertThat(instance.metadata()).isEmpty();
        }

        @Test
        void metadataMapReplacesEarlierEntries() {
            ServiceInstance instance = orders().metadata("zone", "eu-1").metadata(Map.of("rack", "r7")).build();

            assertThat(instance.metadata()).containsExactly(Map.entry("rack", "r7"));
        }
    }

    @Nested
    class Metadata {
        @Test
        void isSortedByKey() {
            ServiceInstance instance = orders().metadata("zone", "eu-1").metadata("canary", "true")
                    .metadata("version", "2").build();

            assertThat(instance.metadata().keySet()).containsExactly("canary", "version", "zone");
        }

        @Test
        void cannotBeModified() {
            ServiceInstance instance = orders().metadata("zone", "eu-1").build();

            assertThatThrownBy(() -> instance.metadata().put("zone", "us-1"))
                    .isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void isCopiedFromTheSourceMap() {
            Map<String, String> source = new HashMap<>(Map.of("zone", "eu-1"));
            ServiceInstance instance = orders().metadata(source).build();

            source.put("zone", "us-1");
            source.put("canary", "true");

            assertThat(instance.metadata()).containsExactly(Map.entry("zone", "eu-1"));
        }

        @Test
        void isCopiedFromTheMapGivenToTheConstructor() {
            Map<String, String> source = new LinkedHashMap<>(Map.of("zone", "eu-1"));
            ServiceInstance instance = new ServiceInstance("orders", "orders-1", "h", 80, false, 1, InstanceStatus.UP,
                    source, Duration.ZERO, null);

            source.clear();

            assertThat(instance.metadata()).containsExactly(Map.entry("zone", "eu-1"));
        }

        @Test
        void isNotChangedByReusingTheBuilder() {
            ServiceInstance.Builder builder = orders().metadata("zone", "eu-1");
            ServiceInstance first = builder.build();

            builder.metadata("zone", "us-1");

            assertThat(first.metadata("zone")).isEqualTo("eu-1");
        }

        @Test
        void isSharedNotCopiedByACopyOfTheInstance() {
            ServiceInstance original = orders().metadata("zone", "eu-1").metadata("version", "2").build();

            ServiceInstance drained = original.toBuilder().status(InstanceStatus.OUT_OF_SERVICE).build();
            ServiceInstance registered = new ServiceInstance(original.serviceId(), original.instanceId(),
                    original.host(), original.port(), original.secure(), original.weight(), original.status(),
                    original.metadata(), original.ttl(), Instant.parse("2024-05-01T10:15:30Z"));

            assertThat(drained.metadata()).isSameAs(original.metadata());
            assertThat(registered.metadata()).isSameAs(original.metadata());
        }

        @Test
        void ofACopyChangedInTheBuilderLeavesTheOriginalAlone() {
            ServiceInstance original = orders().metadata("zone", "eu-1").build();

            ServiceInstance changed = original.toBuilder().metadata("zone", "us-1").metadata("canary", "true").build();

            assertThat(original.metadata()).containsExactly(Map.entry("zone", "eu-1"));
            assertThat(changed.metadata()).containsExactly(Map.entry("canary", "true"), Map.entry("zone", "us-1"));
        }

        @Test
        void refusesEveryKindOfChange() {
            Map<String, String> metadata = orders().metadata("zone", "eu-1").build().metadata();

            List<Runnable> changes = List.of(() -> metadata.put("a", "b"), () -> metadata.remove("zone"),
                    metadata::clear, () -> metadata.putAll(Map.of("a", "b")), () -> metadata.putIfAbsent("a", "b"),
                    () -> metadata.replace("zone", "x"), () -> metadata.replace("zone", "eu-1", "x"),
                    () -> metadata.remove("zone", "eu-1"), () -> metadata.replaceAll((k, v) -> v),
                    () -> metadata.computeIfAbsent("zone", k -> "x"), () -> metadata.computeIfPresent("zone",
                            (k, v) -> v), () -> metadata.compute("zone", (k, v) -> v),
                    () -> metadata.merge("zone", "x", (a, b) -> b), () -> metadata.keySet().remove("zone"),
                    () -> metadata.values().clear(), () -> metadata.entrySet().iterator().next().setValue("x"),
                    () -> {
                        var entries = metadata.entrySet().iterator();
                        entries.next();
                        entries.remove();
                    });

            for (Runnable change : changes) {
                assertThatThrownBy(change::run).isInstanceOf(UnsupportedOperationException.class);
            }
            assertThat(metadata).containsExactly(Map.entry("zone", "eu-1"));
        }

        @Test
        void equalsAndHashesLikeAnyMapWithTheSameEntries() {
            Map<String, String> metadata = orders().metadata("zone", "eu-1").metadata("version", "2").build()
                    .metadata();
            Map<String, String> plain = new HashMap<>(Map.of("version", "2", "zone", "eu-1"));

            assertThat(metadata).isEqualTo(plain);
            assertThat(plain).isEqualTo(metadata);
            assertThat(metadata.hashCode()).isEqualTo(plain.hashCode());
            assertThat(metadata).hasToString("{version=2, zone=eu-1}");
        }

        @Test
        void looksUpOneKey() {
            ServiceInstance instance = orders().metadata("zone", "eu-1").build();

            assertThat(instance.metadata("zone")).isEqualTo("eu-1");
            assertThat(instance.metadata("rack")).isNull();
        }

        @Test
        void accepts64Entries() {
            assertThatCode(() -> orders().metadata(entries(64)).build()).doesNotThrowAnyException();
        }

        @Test
        void rejects65Entries() {
            assertThatThrownBy(() -> orders().metadata(entries(65)).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("metadata.size must be at most 64 entries, but was 65");
        }

        @Test
        void acceptsAValueOf1024Characters() {
            assertThat(orders().metadata("note", "v".repeat(1024)).build().metadata("note")).hasSize(1024);
        }

        @Test
        void rejectsAValueOf1025CharactersShortenedInTheMessage() {
            String value = "v".repeat(1025);

            assertThatThrownBy(() -> orders().metadata("note", value).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("metadata[note] must be non-null and at most 1024 characters, but was '"
                            + "v".repeat(61) + "...(1025 chars)'");
        }

        @Test
        void acceptsAnEmptyValue() {
            assertThat(orders().metadata("flag", "").build().metadata("flag")).isEmpty();
        }

        @Test
        void rejectsANullValue() {
            assertThatThrownBy(() -> orders().metadata("zone", null).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("metadata[zone] must be non-null and at most 1024 characters, but was null");
        }

        @Test
        void rejectsABadKey() {
            assertThatThrownBy(() -> orders().metadata("my zone", "eu-1").build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("metadata key must be 1-128 characters of [A-Za-z0-9._/-], starting with a letter or"
                            + " digit, but was 'my zone'");
        }

        @Test
        void rejectsANullMapGivenToTheConstructor() {
            assertThatThrownBy(() -> new ServiceInstance("orders", "orders-1", "h", 80, false, 1, InstanceStatus.UP,
                    null, Duration.ZERO, null))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("metadata must be non-null, but was null");
        }

        @Test
        void reportsTheSizeAndEveryBadEntryTogether() {
            Map<String, String> metadata = entries(65);
            metadata.put("bad key", "x");
            metadata.put("empty", null);

            InvalidArgumentException e = InvalidArguments.thrownBy(() -> orders().metadata(metadata).build());

            assertThat(e.violations()).extracting(Violation::field)
                    .containsExactly("metadata.size", "metadata key", "metadata[empty]");
        }

        private Map<String, String> entries(int count) {
            return IntStream.range(0, count).boxed()
                    .collect(Collectors.toMap(i -> "k" + i, i -> "v", (a, b) -> a, LinkedHashMap::new));
        }
    }

    @Nested
    class Host {
        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"localhost", "h", "10.0.0.1", "orders-1.eu-west-1.internal", "host.",
                "ORDERS.EXAMPLE.COM", "::1", "2001:db8::8a2e:370:7334", "::ffff:192.0.2.1", "fe80::1%eth0",
                "[::1]", "[2001:db8::1]"})
        void acceptsHostNamesAndIpAddresses(String host) {
            assertThat(orders().host(host).build().host()).isEqualTo(host);
        }

        @Test
        void acceptsAHostOf253Characters() {
            String host = "a".repeat(63) + "." + "b".repeat(63) + "." + "c".repeat(63) + "." + "d".repeat(61);

            assertThat(host).hasSize(253);
            assertThat(orders().host(host).build().host()).isEqualTo(host);
        }

        @Test
        void rejectsAHostOf254CharactersShortenedInTheMessage() {
            String host = "h".repeat(254);

            assertThatThrownBy(() -> orders().host(host).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("host must be " + HOST_RULE + ", but was '" + "h".repeat(61) + "...(254 chars)'");
        }

        @ParameterizedTest(name = "''{0}''")
        @NullAndEmptySource
        @ValueSource(strings = {" ", "my host", "host\t", "\nhost", "{host}", "host{", "}", "bücher.de",
                "host\u00a0", "user@host", "host/path", "host?q", "host#f", "host%20", "host:8080",
                "1::2::3", "1:2", "[::1", "::1]", "[]", "[host]", "fe80::1%", "fe80::1%br-0", "a|b", "a\\b",
                "a\"b", "a<b", "_", "my_host", "a..b", ".a", "-a", "a-", "a.-b", "999.1.1.1"})
        void rejectsWhatCannotBeTheHostOfAUri(String host) {
            assertThatThrownBy(() -> orders().host(host).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageStartingWith("host must be " + HOST_RULE + ", but was ");
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"localhost", "10.0.0.1", "orders.internal", "::1", "fe80::1%eth0", "[::1]"})
        void everyAcceptedHostMakesAUriWithThatAuthority(String host) {
            URI uri = orders().host(host).port(8443).build().uri();

            assertThat(uri.getHost()).isNotNull();
            String bracketed = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
            assertThat(uri.getRawAuthority()).isEqualTo(bracketed + ":8443");
            assertThat(uri.getRawPath()).isEmpty();
        }
    }

    @Nested
    class Uri {
        @Test
        void isHttpWhenNotSecure() {
            assertThat(orders().build().uri()).isEqualTo(URI.create("http://10.0.0.1:8080"));
        }

        @Test
        void isHttpsWhenSecure() {
            assertThat(orders().secure(true).port(8443).build().uri()).isEqualTo(URI.create("https://10.0.0.1:8443"));
        }

        @Test
        void bracketsAnIpv6Literal() {
            URI uri = orders().host("2001:db8::1").build().uri();

            assertThat(uri).hasToString("http://[2001:db8::1]:8080");
            assertThat(uri.getHost()).isEqualTo("[2001:db8::1]");
            assertThat(uri.getPort()).isEqualTo(8080);
        }

        @Test
        void keepsTheBracketsOfAnIpv6LiteralGivenWithThem() {
            assertThat(orders().host("[::1]").build().uri()).hasToString("http://[::1]:8080");
        }
    }

    @Nested
    class Port {
        @ParameterizedTest(name = "{0}")
        @ValueSource(ints = {1, 80, 65_535})
        void acceptsATcpPort(int port) {
            assertThat(orders().port(port).build().port()).isEqualTo(port);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(ints = {0, -1, 65_536, Integer.MIN_VALUE})
        void rejectsAnythingElse(int port) {
            assertThatThrownBy(() -> orders().port(port).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("port must be between 1 and 65535, but was " + port);
        }

        @Test
        void isRequired() {
            assertThatThrownBy(() -> ServiceInstance.builder("orders", "orders-1").host("h").build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("port must be between 1 and 65535, but was 0");
        }
    }

    @Nested
    class Weight {
        @ParameterizedTest(name = "{0}")
        @ValueSource(ints = {0, 1, 10_000})
        void acceptsZeroToTenThousand(int weight) {
            assertThat(orders().weight(weight).build().weight()).isEqualTo(weight);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(ints = {-1, 10_001})
        void rejectsAnythingElse(int weight) {
            assertThatThrownBy(() -> orders().weight(weight).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("weight must be between 0 and 10000, but was " + weight);
        }
    }

    @Nested
    class Ttl {
        @ParameterizedTest(name = "{0}")
        @CsvSource({"PT1S", "PT30S", "PT24H", "P1D"})
        void acceptsOneSecondToOneDay(Duration ttl) {
            ServiceInstance instance = orders().ttl(ttl).build();

            assertThat(instance.ttl()).isEqualTo(ttl);
            assertThat(instance.ephemeral()).isTrue();
        }

        @Test
        void acceptsZeroAsPersistent() {
            ServiceInstance instance = orders().ttl(Duration.ZERO).build();

            assertThat(instance.ephemeral()).isFalse();
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource({"PT0.999S", "PT24H0.001S", "PT-1S", "PT-0.000000001S"})
        void rejectsBelowOneSecondAboveOneDayAndNegative(Duration ttl) {
            assertThatThrownBy(() -> orders().ttl(ttl).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("ttl must be between PT1S and PT24H in whole milliseconds, but was " + ttl);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource({"PT1.000000001S", "PT30.0005S", "PT23H59M59.999999999S"})
        void rejectsASubMillisecondPartRedisWouldDrop(Duration ttl) {
            assertThatThrownBy(() -> orders().ttl(ttl).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("ttl must be between PT1S and PT24H in whole milliseconds, but was " + ttl);
        }

        @Test
        void rejectsNullWithOneViolation() {
            InvalidArgumentException e = InvalidArguments.thrownBy(() -> orders().ttl(null).build());

            assertThat(e.violations()).containsExactly(new Violation("ttl", "null", "non-null"));
        }
    }

    @Nested
    class AllRules {
        @Test
        void reportsABadPortAndABadWeightTogetherInOrder() {
            InvalidArgumentException e = InvalidArguments.thrownBy(() -> orders().port(0).weight(10_001).build());

            assertThat(e.violations()).containsExactly(
                    new Violation("port", "0", "between 1 and 65535"),
                    new Violation("weight", "10001", "between 0 and 10000"));
            assertThat(e).hasMessage("port must be between 1 and 65535, but was 0; "
                    + "weight must be between 0 and 10000, but was 10001");
        }

        @Test
        void reportsEveryBrokenFieldInDeclarationOrder() {
            InvalidArgumentException e = InvalidArguments.thrownBy(() -> new ServiceInstance("", "/x", " ", 0,
                    false, -1, null, Map.of("k", "v".repeat(1025)), Duration.ofMillis(1), null));

            assertThat(e.violations()).extracting(Violation::field).containsExactly("serviceId", "instanceId",
                    "host", "port", "weight", "status", "metadata[k]", "ttl");
        }

        @Test
        void rejectsABadServiceId() {
            assertThatThrownBy(() -> ServiceInstance.builder("orders api", "orders-1").host("h").port(1).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("serviceId must be 1-128 characters of [A-Za-z0-9._-], starting with a letter or "
                            + "digit, but was 'orders api'");
        }

        @Test
        void rejectsABadInstanceId() {
            assertThatThrownBy(() -> ServiceInstance.builder("orders", null).host("h").port(1).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("instanceId must be 1-128 characters of [A-Za-z0-9._:@-], starting with a letter or "
                            + "digit, but was null");
        }

        @Test
        void acceptsAnInstanceIdWithHostAndPort() {
            assertThat(ServiceInstance.builder("orders", "orders@10.0.0.1:8080").host("h").port(1).build()
                    .instanceId()).isEqualTo("orders@10.0.0.1:8080");
        }

        @Test
        void rejectsANullStatus() {
            assertThatThrownBy(() -> orders().status(null).build())
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("status must be non-null, but was null");
        }
    }
}
