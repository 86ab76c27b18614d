package io.lodestar.micronaut;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ViewStatus;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import org.reactivestreams.Publisher;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link LodestarClient#health()} as a Micronaut health indicator: UP when every Redis node is connected and no
 * view is stale, DOWN with a {@code reason} otherwise. {@code health()} reads local state only, so the result is computed on the caller's thread.
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
        String reason = reason(health);
        if (reason != null) {
            details.put("reason", reason);
        }
        details.put("nodes", health.nodes().stream().map(node -> {
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("address", node.address());
            n.put("connected", node.connected());
            putTime(n, "since", node.since());
            return n;
        }).toList());
        details.put("discovery", view(health.discovery()));
        details.put("config", view(health.config()));
        ClientHealth.Registrations registrations = health.registrations();
        Map<String, Object> renewals = new LinkedHashMap<>();
        renewals.put("held", registrations.held());
        putTime(renewals, "lastRenewalAt", registrations.lastRenewalAt());
        renewals.put("lateRenewals", registrations.lateRenewals());
        renewals.put("failedRenewals", registrations.failedRenewals());
        details.put("registrations", renewals);
        // No exception on the result: Micronaut logs every result's exception at ERROR with its stack trace.
        return Publishers.just(HealthResult.builder("lodestar", reason == null ? HealthStatus.UP : HealthStatus.DOWN)
                .details(details).build());
    }

    /** @return why the client is not healthy (the nodes it is not connected to, else its stale views), or null */
    private static String reason(ClientHealth health) {
        List<String> disconnected = health.nodes().stream().filter(node -> !node.connected())
                .map(ClientHealth.Node::address).toList();
        if (!disconnected.isEmpty()) {
            return "Redis not connected: " + String.join(", ", disconnected)
                    + "; reads are served from the local view";
        }
        if (health.discovery().stale() || health.config().stale()) {
            return "view stale: discovery for " + health.discovery().staleFor() + ", config for "
                    + health.config().staleFor();
        }
        return null;
    }

    private static Map<String, Object> view(ViewStatus status) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("stale", status.stale());
        details.put("staleFor", status.staleFor().toString());
        putTime(details, "lastSyncAt", status.lastSyncAt());
        details.put("restoredFromDisk", status.restoredFromDisk());
        return details;
    }

    /** A time that never happened (never synced, no renewal yet) is left out, not written as "null". */
    private static void putTime(Map<String, Object> details, String name, Instant time) {
        if (time != null) {
            details.put(name, time.toString());
        }
    }
}
