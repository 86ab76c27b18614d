package io.lodestar.core.internal;

import com.sun.management.ThreadMXBean;
import io.lodestar.core.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Metadata frozen once, after its rules passed, and never copied or checked again. */
class FrozenMetadataTest {
    /** Kept here, so the JIT cannot prove the checks unused and drop what they allocate. */
    private static volatile Object sink;

    @Test
    void freezingSortsAndCopies() {
        Map<String, String> source = new LinkedHashMap<>();
        source.put("zone", "eu-1");
        source.put("canary", "true");

        FrozenMetadata frozen = FrozenMetadata.freeze("metadata", source, Validation.collector());
        source.put("rack", "r7");

        assertThat(frozen).containsExactly(Map.entry("canary", "true"), Map.entry("zone", "eu-1"));
    }

    @Test
    void freezingFrozenMetadataReturnsItAsItIs() {
        FrozenMetadata frozen = FrozenMetadata.freeze("metadata", Map.of("zone", "eu-1"), Validation.collector());

        assertThat(FrozenMetadata.freeze("metadata", frozen, Validation.collector())).isSameAs(frozen);
    }

    @Test
    void brokenMetadataIsNotFrozenAndItsViolationsAreCollected() {
        Validation.Collector checks = Validation.collector();

        FrozenMetadata frozen = FrozenMetadata.freeze("put", Map.of("-zone", "eu-1"), checks);

        assertThat(frozen).isNull();
        assertThatThrownBy(checks::throwIfInvalid).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("put key must be 1-128 characters of [A-Za-z0-9._/-]");
    }

    @Test
    void adoptingChecksTheRulesToo() {
        Validation.Collector checks = Validation.collector();
        TreeMap<String, String> entries = new TreeMap<>();
        entries.put("zone", "x".repeat(Validation.MAX_METADATA_VALUE_LENGTH + 1));

        assertThat(FrozenMetadata.adopt("metadata", entries, checks)).isNull();
        assertThat(checks.violations()).singleElement()
                .satisfies(violation -> assertThat(violation.field()).isEqualTo("metadata[zone]"));
    }

    @Test
    void adoptingAMapInAnotherOrderSortsItByKey() {
        TreeMap<String, String> reversed = new TreeMap<>(Comparator.reverseOrder());
        reversed.put("a", "1");
        reversed.put("b", "2");

        FrozenMetadata frozen = FrozenMetadata.adopt("metadata", reversed, Validation.collector());

        assertThat(frozen.keySet()).containsExactly("a", "b");
    }

    @Test
    void checksThatPassBuildNoRuleOrFieldText() {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("zone", "eu-1");
        metadata.put("version", "2.4.1");
        validateInstanceFields(metadata, 200_000); // warm up

        long before = allocatedBytes();
        validateInstanceFields(metadata, 200_000);
        double perCheck = (double) (allocatedBytes() - before) / 200_000;

        // The collector (16 bytes) and the metadata map's entry iterator (32) at most, until the JIT removes them:
        // before, a passing check of these fields built the TTL rule's text and every metadata entry's field names
        // (580 bytes per validation).
        assertThat(perCheck).as("bytes per validation").isLessThanOrEqualTo(64.0);
    }

    private static void validateInstanceFields(Map<String, String> metadata, int times) {
        Duration ttl = Duration.ofSeconds(30);
        for (int i = 0; i < times; i++) {
            Validation.Collector checks = Validation.collector().serviceId("serviceId", "orders")
                    .instanceId("instanceId", "orders-7f3a").host("host", "10.1.2.3").port("port", 8080)
                    .weight("weight", 100).metadata("metadata", metadata).ttl("ttl", ttl)
                    .range("version", 4, 0, Long.MAX_VALUE);
            checks.throwIfInvalid();
            sink = checks;
        }
    }

    private static long allocatedBytes() {
        return ((ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
