package io.lodestar.micronaut;

import io.micronaut.context.annotation.Value;
import io.micronaut.runtime.context.scope.Refreshable;

/** A {@code @Refreshable} bean reading one property, as an application's would. */
@Refreshable
class RefreshableGreeter {
    @Value("${greeting:none}")
    String greeting;

    String greeting() {
        return greeting;
    }
}
