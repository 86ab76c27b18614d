package io.lodestar.core.model;

import io.lodestar.core.internal.Validation;

import java.time.Instant;

/**
 * One version of a configuration entry. Immutable.
 *
 * @param id          the config id
 * @param content     the text, up to {@value Validation#MAX_CONFIG_CONTENT_BYTES} UTF-8 bytes
 * @param format      how the content is written (a hint)
 * @param version     1 for the first write, +1 for every write that changed the content or format
 * @param contentHash SHA-1 of the content, hex, as computed by Redis
 * @param createdAt   when version 1 was written (Redis time)
 * @param updatedAt   when this version was written (Redis time)
 */
public record ConfigEntry(String id, String content, ConfigFormat format, long version, String contentHash,
                          Instant createdAt, Instant updatedAt) {
    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field breaks its rule
     */
    public ConfigEntry {
        Validation.collector()
                .configId("id", id)
                .configContent("content", content)
                .notNull("format", format)
                .range("version", version, 1, Long.MAX_VALUE)
                .notNull("contentHash", contentHash)
                .notNull("createdAt", createdAt)
                .notNull("updatedAt", updatedAt)
                .throwIfInvalid();
    }

    @Override
    public String toString() {
        return "ConfigEntry[id=" + id + ", version=" + version + ", format=" + format + ", contentHash=" + contentHash
                + ", length=" + content.length() + ", updatedAt=" + updatedAt + "]";
    }
}
