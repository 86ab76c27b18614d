package io.lodestar.spring;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ViewStatus;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /actuator/lodestar}, read-only: the namespace, its services and how current the client's views are, with
 * the registrations this client renews.
 */
@Endpoint(id = "lodestar")
class LodestarEndpoint {
    private final LodestarClient lodestar;

    LodestarEndpoint(LodestarClient lodestar) {
        this.lodestar = lodestar;
    }

    @ReadOperation
    Map<String, Object> lodestar() {
        ClientHealth health = lodestar.health();
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("namespace", lodestar.namespace().name());
        report.put("services", lodestar.discovery().getServices().stream().sorted().toList());
        report.put("discovery", view(health.discovery()));
        report.put("config", view(health.config()));
        report.put("registrationsHeld", health.registrations().held());
        return report;
    }

    private static Map<String, Object> view(ViewStatus status) {
        return Map.of("stale", status.stale(), "staleFor", status.staleFor().toString(),
                "lastSyncAt", String.valueOf(status.lastSyncAt()));
    }
}
