package io.lodestar.core.model;

import io.lodestar.core.internal.Validation;

import java.time.Instant;

/**
 * One live client's report of the version of a config it applied (read into its view, from where reads and
 * listeners get it): who runs what. A client records it when its view takes a new version, keeps it alive while it
 * holds the config, and removes it when it closes or drops the config; a client that crashed or lost Redis stops
 * keeping it alive and disappears after {@code expiresAt}.
 *
 * @param configId   the config
 * @param client     a random id of the client, new for every client object (one per process, normally)
 * @param clientName the client's {@code clientName} option
 * @param host       the host the client runs on, as it names itself
 * @param pid        the client's process id
 * @param version    the version it applied
 * @param variant    which content of that version: {@value #MAIN} for the config's current content, {@value #GRAY}
 *                   for the content of a gray release that applies to the client
 * @param appliedAt  when it applied that version and variant (Redis time)
 * @param expiresAt  when the report disappears unless the client renews it (Redis time)
 */
public record AppliedConfig(String configId, String client, String clientName, String host, long pid, long version,
                            String variant, Instant appliedAt, Instant expiresAt) {
    /** The variant of every client that applied the config's current content. */
    public static final String MAIN = "main";
    /** The variant of every client in the gray set of a running gray release: it applied the release's content. */
    public static final String GRAY = "gray";

    /**
     * @throws io.lodestar.core.InvalidArgumentException when a field breaks its rule
     */
    public AppliedConfig {
        Validation.collector()
                .configId("configId", configId)
                .notNull("client", client)
                .notNull("clientName", clientName)
                .notNull("host", host)
                .range("version", version, 1, Long.MAX_VALUE)
                .notNull("variant", variant)
                .notNull("appliedAt", appliedAt)
                .notNull("expiresAt", expiresAt)
                .throwIfInvalid();
    }
}
