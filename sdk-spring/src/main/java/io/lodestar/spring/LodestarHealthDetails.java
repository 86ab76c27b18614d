package io.lodestar.spring;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.ViewStatus;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client's health as the JSON the health indicator and {@code /actuator/lodestar} show. A time that never
 * happened (a view never synced, no renewal yet) is left out, not written as the string {@code "null"}.
 */
final class LodestarHealthDetails {
    private LodestarHealthDetails() {
    }

    /**
     * @return why the client is not healthy, for a DOWN status, or null when it is: the nodes it is not connected
     *     to, else the views that are stale
     */
    static String reason(ClientHealth health) {
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

    static List<Map<String, Object>> nodes(ClientHealth health) {
        return health.nodes().stream().map(node -> {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("address", node.address());
            details.put("connected", node.connected());
            putTime(details, "since", node.since());
            return details;
        }).toList();
    }

    static Map<String, Object> view(ViewStatus status) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("stale", status.stale());
        details.put("staleFor", status.staleFor().toString());
        putTime(details, "lastSyncAt", status.lastSyncAt());
        details.put("restoredFromDisk", status.restoredFromDisk());
        return details;
    }

    static Map<String, Object> registrations(ClientHealth.Registrations registrations) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("held", registrations.held());
        putTime(details, "lastRenewalAt", registrations.lastRenewalAt());
        details.put("lateRenewals", registrations.lateRenewals());
        details.put("failedRenewals", registrations.failedRenewals());
        return details;
    }

    private static void putTime(Map<String, Object> details, String name, Instant time) {
        if (time != null) {
            details.put(name, time.toString());
        }
    }
}
