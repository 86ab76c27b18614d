package io.lodestar.micronaut;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ViewStatus;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import org.reactivestreams.Publisher;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@link LodestarClient#health()} as a Micronaut health indicator: UP when every Redis node is connected and no
 * view is stale. {@code health()} reads local state only, so the result is computed on the caller's thread.
 * Details are plain maps of strings, numbers and booleans, so any JSON codec renders them.
 */
final class LodestarHealthIndicator implements HealthIndicator {
    private final LodestarClient client;

    LodestarHealthIndicator(LodestarClient client) {
        this.client = client;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        ClientHealth health = client.health();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("nodes", health.nodes().stream().map(node -> {
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("address", node.address());
            n.put("connected", node.connected());
            n.put("since", String.valueOf(node.since()));
            if (node.problem() != null) { // e.g. "no answer from 127.0.0.1:6379 for 5 s": a frozen Redis
                n.put("problem", node.problem());
            }
            return n;
        }).toList());
        details.put("discovery", view(health.discovery()));
        details.put("config", view(health.config()));
        ClientHealth.Registrations registrations = health.registrations();
        details.put("registrations", Map.of(
                "held", registrations.held(),
                "lastRenewalAt", String.valueOf(registrations.lastRenewalAt()),
                "lateRenewals", registrations.lateRenewals(),
                "failedRenewals", registrations.failedRenewals()));
        return Publishers.just(HealthResult.builder("lodestar", health.healthy() ? HealthStatus.UP : HealthStatus.DOWN)
                .details(details).build());
    }

    private static Map<String, Object> view(ViewStatus status) {
        return Map.of(
                "stale", status.stale(),
                "staleFor", status.staleFor().toString(),
                "lastSyncAt", String.valueOf(status.lastSyncAt()),
                "restoredFromDisk", status.restoredFromDisk());
    }
}
