/**
 * Internal: shared by Lodestar's own modules (the input rules every module applies), not an API. Anything here may
 * change or go in any release without notice; applications use {@code io.lodestar.core} only.
 */
@NullMarked
package io.lodestar.core.internal;

import org.jspecify.annotations.NullMarked;
