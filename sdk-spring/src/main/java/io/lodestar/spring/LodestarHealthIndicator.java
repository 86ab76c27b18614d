package io.lodestar.spring;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ViewStatus;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client's {@link LodestarClient#health() health} as an actuator indicator: UP when every Redis node is
 * connected and no view is stale, DOWN otherwise, with the nodes, the views' staleness and the registrations'
 * renewals as details. Local state only: no Redis call per probe.
 */
class LodestarHealthIndicator implements HealthIndicator {
    private final LodestarClient lodestar;

    LodestarHealthIndicator(LodestarClient lodestar) {
        this.lodestar = lodestar;
    }

    @Override
    public Health health() {
        ClientHealth health = lodestar.health();
        List<Map<String, Object>> nodes = health.nodes().stream().map(node -> {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("address", node.address());
            details.put("connected", node.connected());
            details.put("since", String.valueOf(node.since()));
            if (node.problem() != null) { // e.g. "no answer from 127.0.0.1:6379 for 5 s": a frozen Redis
                details.put("problem", node.problem());
            }
            return details;
        }).toList();
        ClientHealth.Registrations registrations = health.registrations();
        return (health.healthy() ? Health.up() : Health.down())
                .withDetail("namespace", lodestar.namespace().name())
                .withDetail("nodes", nodes)
                .withDetail("discovery", view(health.discovery()))
                .withDetail("config", view(health.config()))
                .withDetail("registrations", Map.of("held", registrations.held(),
                        "lastRenewalAt", String.valueOf(registrations.lastRenewalAt()),
                        "lateRenewals", registrations.lateRenewals(),
                        "failedRenewals", registrations.failedRenewals()))
                .build();
    }

    private static Map<String, Object> view(ViewStatus status) {
        return Map.of("stale", status.stale(), "staleFor", status.staleFor().toString(),
                "lastSyncAt", String.valueOf(status.lastSyncAt()), "restoredFromDisk", status.restoredFromDisk());
    }
}
