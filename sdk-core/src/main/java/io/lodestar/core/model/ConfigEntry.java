package io.lodestar.core.model;

import io.lodestar.core.internal.Validation;

import java.time.Instant;
import java.util.Optional;

/**
 * One version of a configuration entry. Immutable.
 *
 * @param id          the config id
 * @param content     the text, up to {@value Validation#MAX_CONFIG_CONTENT_BYTES} UTF-8 bytes
 * @param format      how the content is written (a hint)
 * @param version     1 for the first write, +1 for every write that changed the content or format
 * @param contentHash SHA-1 of the content's UTF-8 bytes, hex; for an encrypted entry {@code hmac:<key id>:<hex>},
 *                    an HMAC under its key, which tells equal contents without revealing them
 * @param createdAt   when version 1 was written (Redis time)
 * @param updatedAt   when this version was written (Redis time)
 */
public record ConfigEntry(String id, String content, ConfigFormat format, long version, String contentHash,
                          Instant createdAt, Instant updatedAt) {
    /** How the content hash of an encrypted entry starts: {@code hmac:<key id>:<hex>}. */
    public static final String KEYED_HASH = "hmac:";

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

    /**
     * @return the id of the key the entry is encrypted under (read from its keyed content hash), or empty when it is
     *     stored in plain text
     */
    public Optional<String> keyId() {
        int end = contentHash.startsWith(KEYED_HASH) ? contentHash.indexOf(':', KEYED_HASH.length()) : -1;
        return end > KEYED_HASH.length() ? Optional.of(contentHash.substring(KEYED_HASH.length(), end))
                : Optional.empty();
    }

    @Override
    public String toString() {
        return "ConfigEntry[id=" + id + ", version=" + version + ", format=" + format + ", contentHash=" + contentHash
                + ", length=" + content.length() + ", updatedAt=" + updatedAt + "]";
    }
}
