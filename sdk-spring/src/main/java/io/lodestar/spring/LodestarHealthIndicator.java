package io.lodestar.spring;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The client's {@link LodestarClient#health() health} as an actuator indicator: UP when every Redis node is
 * connected and no view is stale, DOWN with a {@code reason} otherwise, with the nodes, the views' staleness and the
 * registrations' renewals as details. Local state only: no Redis call per probe. It is a member of the
 * {@code readiness} probe group, not of {@code liveness} (see {@link LodestarReadinessGroup}).
 */
class LodestarHealthIndicator implements HealthIndicator {
    private final LodestarClient lodestar;

    LodestarHealthIndicator(LodestarClient lodestar) {
        this.lodestar = lodestar;
    }

    @Override
    public Health health() {
        ClientHealth health = lodestar.health();
        Health.Builder builder = health.healthy() ? Health.up() : Health.down();
        return builder.withDetail("namespace", lodestar.namespace().name())
                .withDetails(health.details())
                .build();
    }
}
