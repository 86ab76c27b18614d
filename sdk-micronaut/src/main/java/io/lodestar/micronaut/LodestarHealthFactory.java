package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import jakarta.inject.Singleton;

/**
 * The health concern, when micronaut-management is present. A readiness check, not a liveness one: while Redis is
 * down the views keep serving (stale), so the instance should leave the load balancer, not be restarted.
 */
@Factory
@Requires(classes = HealthIndicator.class)
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarHealthFactory.ENABLED, notEquals = "false")
class LodestarHealthFactory {
    /** {@code false} removes the health indicator. */
    static final String ENABLED = LodestarConfiguration.PREFIX + ".health.enabled";

    @Singleton
    @Readiness
    HealthIndicator lodestarHealthIndicator(LodestarClient client) {
        return new LodestarHealthIndicator(client);
    }
}
