/** Immutable values: instances, snapshots, config entries, namespaces. Nothing is null unless marked. */
@NullMarked
package io.lodestar.core.model;

import org.jspecify.annotations.NullMarked;
