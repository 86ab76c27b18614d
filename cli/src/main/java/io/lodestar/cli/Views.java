package io.lodestar.cli;

import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The shapes of the CLI's structured output and of the console's JSON, as plain maps: one place to read what a
 * script gets. Times are ISO-8601 strings, durations whole seconds.
 */
final class Views {
    static final List<String> SERVICE_COLUMNS = List.of("service", "instances", "up", "revision");
    /**
     * The instance table. "TTL left" is read from Redis ({@code registry().timeToLive}): renewals move deadlines
     * without an event, so no view knows it; "persistent" for instances that never expire, "?" when Redis could not
     * be asked.
     */
    static final List<String> INSTANCE_COLUMNS =
            List.of("id", "address", "weight", "status", "zone", "age", "ttlLeft", "revision");
    static final List<String> CONFIG_COLUMNS = List.of("id", "version", "format", "size", "updatedAt");
    static final List<String> HISTORY_COLUMNS = List.of("version", "format", "size", "hash", "updatedAt");

    private Views() {
    }

    static Map<String, Object> service(ServiceSnapshot snapshot) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("service", snapshot.serviceId());
        row.put("instances", snapshot.instances().size());
        row.put("up", snapshot.instances().stream().filter(i -> i.status() == InstanceStatus.UP).count());
        row.put("revision", snapshot.revision());
        return row;
    }

    static Map<String, Object> serviceDetail(ServiceSnapshot snapshot, Instant now, Map<String, Duration> ttlLeft) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("service", snapshot.serviceId());
        detail.put("revision", snapshot.revision());
        detail.put("instances", instances(snapshot, now, ttlLeft));
        return detail;
    }

    /** @param ttlLeft time left per ephemeral instance, as {@code registry().timeToLive} read it (empty: unknown) */
    static List<Map<String, Object>> instances(ServiceSnapshot snapshot, Instant now, Map<String, Duration> ttlLeft) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ServiceInstance instance : snapshot.instances()) {
            rows.add(instance(instance, snapshot.revision(), now, ttlLeft.get(instance.instanceId())));
        }
        return rows;
    }

    static Map<String, Object> instance(ServiceInstance instance, long revision, Instant now,
                                        @Nullable Duration ttlLeft) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", instance.instanceId());
        row.put("service", instance.serviceId());
        row.put("address", address(instance));
        row.put("secure", instance.secure());
        row.put("weight", instance.weight());
        row.put("status", statusName(instance.status()));
        row.put("zone", instance.metadata("zone"));
        if (instance.region() != null) { // read by a client that names regions (lodestar regions)
            row.put("region", instance.region());
        }
        row.put("metadata", instance.metadata());
        row.put("registeredAt", instance.registeredAt() == null ? null : instance.registeredAt().toString());
        row.put("ageSeconds", instance.registeredAt() == null ? null
                : Math.max(0, Duration.between(instance.registeredAt(), now).toSeconds()));
        row.put("age", instance.registeredAt() == null ? null
                : human(Duration.between(instance.registeredAt(), now)));
        row.put("ephemeral", instance.ephemeral());
        row.put("ttlSeconds", instance.ephemeral() ? instance.ttl().toSeconds() : null);
        row.put("ttl", instance.ephemeral() ? human(instance.ttl()) : "persistent");
        row.put("ttlLeftSeconds", ttlLeft == null ? null : ttlLeft.toSeconds());
        row.put("ttlLeft", !instance.ephemeral() ? "persistent" : ttlLeft == null ? "?" : human(ttlLeft));
        if (revision > 0) {
            row.put("revision", revision);
        }
        return row;
    }

    static String address(ServiceInstance instance) {
        String host = instance.host().indexOf(':') >= 0 && !instance.host().startsWith("[")
                ? "[" + instance.host() + "]" : instance.host();
        return host + ":" + instance.port();
    }

    static String statusName(InstanceStatus status) {
        return status.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Map<String, Object> config(ConfigEntry entry, boolean withContent) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", entry.id());
        row.put("version", entry.version());
        row.put("format", entry.format().name().toLowerCase(Locale.ROOT));
        row.put("size", entry.content().length());
        row.put("hash", entry.contentHash());
        row.put("createdAt", entry.createdAt().toString());
        row.put("updatedAt", entry.updatedAt().toString());
        if (withContent) {
            row.put("content", entry.content());
        }
        return row;
    }

    /** A diff of two versions of a config: one line per element, {@code op} being ' ', '+' or '-'. */
    static Map<String, Object> diff(Configs.Compared diff) {
        List<Map<String, Object>> lines = new ArrayList<>();
        for (Diff.Line line : diff.lines()) {
            lines.add(Map.of("op", String.valueOf(line.op()), "text", line.text()));
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("id", diff.to().id());
        result.put("from", diff.from().version());
        result.put("to", diff.to().version());
        result.put("lines", lines);
        return result;
    }

    /** 42s, 3m12s, 2h05m, 3d04h: precise enough to read at a glance. */
    static String human(Duration duration) {
        long s = Math.max(0, duration.toSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return (s / 60) + "m" + String.format(Locale.ROOT, "%02ds", s % 60);
        }
        if (s < 86_400) {
            return (s / 3600) + "h" + String.format(Locale.ROOT, "%02dm", (s % 3600) / 60);
        }
        return (s / 86_400) + "d" + String.format(Locale.ROOT, "%02dh", (s % 86_400) / 3600);
    }
}
