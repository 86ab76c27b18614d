package io.lodestar.spring;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.UnavailableException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /actuator/lodestar}, read-only: the namespace, its services, the services the local view holds with the
 * revision and instance count of each, how current the client's views are, and the registrations this client renews.
 * Reading it loads nothing and does not keep a service in the view.
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
        try {
            report.put("services", lodestar.discovery().getServices().stream().sorted().toList());
        } catch (UnavailableException e) { // the index was never loaded: Redis has not answered since the start
            report.put("services", "unavailable: " + e.getMessage());
        }
        Map<String, Object> held = new LinkedHashMap<>();
        lodestar.discovery().heldSnapshots().forEach((serviceId, snapshot) -> held.put(serviceId,
                Map.of("revision", snapshot.revision(), "instances", snapshot.instances().size())));
        report.put("held", held);
        Map<String, Object> details = health.details();
        report.put("discovery", details.get("discovery"));
        report.put("config", details.get("config"));
        report.put("registrationsHeld", health.registrations().held());
        return report;
    }
}
