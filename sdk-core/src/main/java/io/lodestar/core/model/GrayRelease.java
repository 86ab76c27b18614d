package io.lodestar.core.model;

import io.lodestar.core.internal.Validation;

import java.time.Instant;

/**
 * The gray variant of a config: content and format that the instances selected by {@link #rule()} get instead of
 * the config's current version, until the release is promoted (its content becomes the next version) or aborted.
 *
 * @param configId    the config
 * @param content     the gray content (may be a secret: never in {@link #toString()})
 * @param format      its format hint
 * @param contentHash SHA-1 of the content's UTF-8 bytes, hex
 * @param rule        which instances get it
 * @param salt        the release's salt of the stable percentage, fixed from start to end
 * @param baseVersion the config's version when the release started
 * @param revision    the release's own change counter (start, each update)
 * @param startedAt   when it started (Redis time)
 * @param updatedAt   when its content or rule last changed (Redis time)
 */
public record GrayRelease(String configId, String content, ConfigFormat format, String contentHash, GrayRule rule,
                          String salt, long baseVersion, long revision, Instant startedAt, Instant updatedAt) {
    /** @throws io.lodestar.core.InvalidArgumentException naming every invalid field */
    public GrayRelease {
        Validation.collector().configId("configId", configId).configContent("content", content)
                .notNull("format", format).notNull("contentHash", contentHash).notNull("rule", rule)
                .notNull("salt", salt).range("revision", revision, 1, Long.MAX_VALUE)
                .notNull("startedAt", startedAt).notNull("updatedAt", updatedAt).throwIfInvalid();
    }

    /** @return whether the instance is in this release's gray set */
    public boolean appliesTo(InstanceIdentity identity) {
        return rule.matches(identity, salt);
    }

    @Override
    public String toString() {
        return "GrayRelease[configId=" + configId + ", format=" + format + ", contentHash=" + contentHash + ", rule="
                + rule + ", baseVersion=" + baseVersion + ", revision=" + revision + ", length=" + content.length()
                + ", updatedAt=" + updatedAt + "]";
    }
}
