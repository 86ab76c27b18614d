package io.lodestar.core.model;

import java.time.Instant;

/**
 * One record of a config's audit trail: a write, who made it and what it did. Written by the write's own script,
 * so a write without its record (or the reverse) cannot happen.
 *
 * @param configId        the config
 * @param at              when (Redis time)
 * @param operation       {@code set}, {@code cas}, {@code rollback}, {@code remove},
 *                        {@code gray-start}, {@code gray-update}, {@code gray-promote} or {@code gray-abort}
 * @param version         the config's version after the write (for a gray write: the version it sits beside)
 * @param previousVersion the version before it (0 = none)
 * @param contentHash     the hash of the content it wrote ("" for a remove, a purge or an abort)
 * @param client          the writing client's name ({@code LodestarOptions.clientName})
 * @param host            the writing client's host name
 */
public record ConfigAudit(String configId, Instant at, String operation, long version, long previousVersion,
                          String contentHash, String client, String host) {
}
