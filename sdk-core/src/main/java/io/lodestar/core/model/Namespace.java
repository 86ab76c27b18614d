package io.lodestar.core.model;

import io.lodestar.core.internal.Validation;

/**
 * An isolated space of services and configs (keys, events and views never cross namespaces), e.g. one per
 * environment or tenant.
 *
 * @param name 1-64 characters of {@code [A-Za-z0-9._-]}
 */
public record Namespace(String name) {
    /** The namespace used when none is configured. */
    public static final Namespace DEFAULT = new Namespace("default");

    /**
     * @throws io.lodestar.core.InvalidArgumentException when the name breaks the rule
     */
    public Namespace {
        Validation.requireNamespace(name);
    }

    /**
     * @param name the namespace name
     * @return the namespace
     * @throws io.lodestar.core.InvalidArgumentException when the name breaks the rule
     */
    public static Namespace of(String name) {
        return new Namespace(name);
    }

    @Override
    public String toString() {
        return name;
    }
}
