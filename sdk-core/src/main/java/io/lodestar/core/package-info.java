/**
 * Lodestar's public API: the client ({@link io.lodestar.core.Lodestar#connect(String)}), its registry, discovery
 * and config services, listeners, options and exceptions. Nothing in this package is null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package io.lodestar.core;

import org.jspecify.annotations.NullMarked;
