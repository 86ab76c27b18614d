package io.lodestar.core.model;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.InvalidArguments;
import io.lodestar.core.Violation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigEntryTest {
    private static final Instant CREATED = Instant.parse("2024-05-01T10:00:00Z");
    private static final Instant UPDATED = Instant.parse("2024-05-02T11:30:00Z");
    private static final String HASH = "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12";

    private static ConfigEntry entry(String id, String content, long version) {
        return new ConfigEntry(id, content, ConfigFormat.YAML, version, HASH, CREATED, UPDATED);
    }

    @Test
    void keepsEveryField() {
        ConfigEntry entry = entry("orders/db.yaml", "url: jdbc:postgresql://db/orders", 3);

        assertThat(entry.id()).isEqualTo("orders/db.yaml");
        assertThat(entry.content()).isEqualTo("url: jdbc:postgresql://db/orders");
        assertThat(entry.format()).isEqualTo(ConfigFormat.YAML);
        assertThat(entry.version()).isEqualTo(3);
        assertThat(entry.contentHash()).isEqualTo(HASH);
        assertThat(entry.createdAt()).isEqualTo(CREATED);
        assertThat(entry.updatedAt()).isEqualTo(UPDATED);
    }

    @Test
    void acceptsEmptyContent() {
        assertThat(entry("flags", "", 1).content()).isEmpty();
    }

    @Test
    void acceptsExactlyOneMebibyteOfContent() {
        assertThat(entry("big", "x".repeat(1024 * 1024), 1).content()).hasSize(1024 * 1024);
    }

    @Test
    void rejectsContentOverOneMebibyte() {
        assertThatThrownBy(() -> entry("big", "x".repeat(1024 * 1024 + 1), 1))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("content must be at most 1048576 bytes of UTF-8, but was '1048577 bytes'");
    }

    @Test
    void rejectsNullContent() {
        assertThatThrownBy(() -> entry("orders", null, 1))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("content must be non-null, but was null");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(longs = {1, 2, Long.MAX_VALUE})
    void acceptsAPositiveVersion(long version) {
        assertThat(entry("orders", "a=1", version).version()).isEqualTo(version);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(longs = {0, -1})
    void rejectsAVersionBelowOne(long version) {
        assertThatThrownBy(() -> entry("orders", "a=1", version))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("version must be between 1 and " + Long.MAX_VALUE + ", but was " + version);
    }

    @Test
    void rejectsABadId() {
        assertThatThrownBy(() -> entry("orders:db", "a=1", 1))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("id must be 1-128 characters of [A-Za-z0-9._/-], starting with a letter or digit, "
                        + "but was 'orders:db'");
    }

    @Test
    void reportsEveryBrokenFieldAtOnce() {
        InvalidArgumentException e = InvalidArguments.thrownBy(
                () -> new ConfigEntry("", null, null, 0, null, null, null));

        assertThat(e.violations()).containsExactly(
                new Violation("id", "''", "1-128 characters of [A-Za-z0-9._/-], starting with a letter or digit"),
                new Violation("content", "null", "non-null"),
                new Violation("format", "null", "non-null"),
                new Violation("version", "0", "between 1 and " + Long.MAX_VALUE),
                new Violation("contentHash", "null", "non-null"),
                new Violation("createdAt", "null", "non-null"),
                new Violation("updatedAt", "null", "non-null"));
    }

    @Test
    void toStringDoesNotPrintTheContent() {
        ConfigEntry entry = entry("orders/db.yaml", "password: hunter2", 4);

        assertThat(entry.toString()).doesNotContain("hunter2")
                .isEqualTo("ConfigEntry[id=orders/db.yaml, version=4, format=YAML, contentHash=" + HASH
                        + ", length=17, updatedAt=2024-05-02T11:30:00Z]");
    }

    @Test
    void isEqualByValue() {
        assertThat(entry("orders", "a=1", 2)).isEqualTo(entry("orders", "a=1", 2))
                .isNotEqualTo(entry("orders", "a=1", 3));
    }
}
