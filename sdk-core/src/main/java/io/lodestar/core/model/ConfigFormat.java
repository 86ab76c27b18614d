package io.lodestar.core.model;

/** A hint of how a config's content is written; it travels with the entry and is never enforced. */
public enum ConfigFormat {
    /** Java properties. */
    PROPERTIES,
    /** YAML. */
    YAML,
    /** JSON. */
    JSON,
    /** Anything else. */
    TEXT
}
