/** The sealed event types listeners receive, named in the past tense. Nothing is null unless marked. */
@NullMarked
package io.lodestar.core.event;

import org.jspecify.annotations.NullMarked;
