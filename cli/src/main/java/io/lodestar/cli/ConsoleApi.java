package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The console's JSON endpoints over the SDK's local view, without HTTP: each read answers a path and its query
 * parameters with a value the server writes as JSON; each write says what it did, for the audit log. Failures are
 * the SDK's exceptions ({@link NotFoundException}, conflicts, unavailability), which the server maps to statuses.
 */
final class ConsoleApi {
    /** The paths a POST may name, and the role each needs (removals need admin: they cannot be undone here). */
    static final Map<String, Users.Role> WRITES = Map.of(
            "/api/config/set", Users.Role.WRITE,
            "/api/config/rollback", Users.Role.WRITE,
            "/api/config/delete", Users.Role.ADMIN,
            "/api/instance/status", Users.Role.WRITE,
            "/api/instance/metadata", Users.Role.WRITE,
            "/api/instance/weight", Users.Role.WRITE,
            "/api/instance/evict", Users.Role.ADMIN);

    /** The {@code region} of {@code /api/region/service} that asks for every region at once. */
    static final String ALL_REGIONS = "*";

    private final LodestarClient client;
    private final boolean readOnly;
    /** The most records of a config's audit trail (in Redis) that {@code /api/config/log} answers with. */
    static final int LOG_RECORDS = 100;

    /** Read on every event of every watched service: from Redis at most once a second per service. */
    private final TtlLeft ttlLeft;

    ConsoleApi(LodestarClient client, boolean readOnly) {
        this.client = client;
        this.readOnly = readOnly;
        this.ttlLeft = new TtlLeft(client);
    }

    /** A write done: its answer, and what the audit log says it did. */
    record Written(Object result, String detail) {
    }

    /** @throws NotFoundException when there is no such page, or nothing under the id asked for */
    Object read(String path, Map<String, String> query) {
        return switch (path) {
            case "/api/state" -> state();
            case "/api/services" -> paged(query, Instances.serviceRows(homeView(), services()), "service");
            case "/api/service" -> pagedService(query, service(Instances.requireSome(homeView().getSnapshot(
                    Http.required(query, "id")), client.namespace().name())));
            case "/api/configs" -> paged(query, Configs.list(client.config(), client.config()), "id");
            case "/api/config" -> config(Http.required(query, "id"));
            case "/api/config/diff" -> Views.diff(Configs.diff(client.config(), client.config(), Http.required(query, "id"),
                    Long.parseLong(Http.required(query, "from")),
                    query.containsKey("to") ? Long.parseLong(query.get("to")) : null));
            case "/api/config/log" -> client.config().log(Http.required(query, "id"), LOG_RECORDS).stream()
                    .map(ConfigLogCommand::view).toList();
            case "/api/regions" -> regions();
            case "/api/region/service" -> regionService(Http.required(query, "region"), Http.required(query, "id"));
            case "/api/config/changes" -> ConfigChanges.recent(client.config());
            default -> throw new NotFoundException("page", path, "no such page: " + path);
        };
    }

    /**
     * One of {@link #WRITES}.
     *
     * @throws IllegalArgumentException when {@code region} names a remote region: the console writes only home
     */
    Written write(String path, Map<String, String> query, JsonNode body) {
        refuseRemoteRegion(query.get("region"));
        switch (path) {
            case "/api/config/set" -> {
                String id = Http.required(query, "id");
                String content = Http.text(body, "content");
                ConfigFormat format = new Converters.Format().convert(body.path("format").asText("TEXT"));
                ConfigEntry entry = body.hasNonNull("expectedVersion")
                        ? client.config().compareAndSet(id, content, format, body.get("expectedVersion").asLong())
                        : client.config().set(id, content, format);
                return new Written(Views.config(entry, true), id + " -> version " + entry.version());
            }
            case "/api/config/rollback" -> {
                String id = Http.required(query, "id");
                long version = body.path("version").asLong();
                Long expected = body.hasNonNull("expectedVersion") ? body.get("expectedVersion").asLong() : null;
                ConfigEntry entry = Configs.rollback(client.config(), id, version, expected);
                return new Written(Views.config(entry, true), id + " version " + version + " -> version "
                        + entry.version());
            }
            case "/api/config/delete" -> {
                String id = Http.required(query, "id");
                if (!client.config().remove(id)) {
                    throw Configs.notFound(id);
                }
                return new Written(Map.of("removed", true), id + " removed");
            }
            case "/api/instance/metadata" -> {
                String service = Http.required(query, "service");
                String instance = Http.required(query, "id");
                Map<String, String> put = Http.strings(body, "put");
                Set<String> remove = new LinkedHashSet<>(Http.stringList(body, "remove"));
                ServiceInstance changed = client.registry().updateMetadata(service, instance, put, remove);
                return new Written(Views.instance(changed, 0, Instant.now(), null), service + "/" + instance
                        + " metadata put " + put.keySet() + " removed " + remove);
            }
            case "/api/instance/evict" -> {
                String service = Http.required(query, "service");
                String instance = Http.required(query, "id");
                Instances.evict(client, service, instance);
                return new Written(Map.of("evicted", true), service + "/" + instance);
            }
            case "/api/instance/status" -> {
                String service = Http.required(query, "service");
                String instance = Http.required(query, "id");
                InstanceStatus status = new Converters.Status().convert(Http.text(body, "status"));
                ServiceInstance changed = client.registry().setStatus(service, instance, status);
                return new Written(Views.instance(changed, 0, Instant.now(), null),
                        service + "/" + instance + " -> " + Views.statusName(status));
            }
            case "/api/instance/weight" -> {
                String service = Http.required(query, "service");
                String instance = Http.required(query, "id");
                // a number or a string holding one, read as the CLI reads its argument
                JsonNode given = body.path("weight");
                int weight = new Converters.Weight().convert(given.isValueNode() ? given.asText() : given.toString());
                ServiceInstance changed = client.registry().setWeight(service, instance, weight);
                return new Written(Views.instance(changed, 0, Instant.now(), null),
                        service + "/" + instance + " weight -> " + weight);
            }
            default -> throw new IllegalArgumentException("not a write: " + path);
        }
    }

    /** The namespace, how current the view is, and a row per service that has an instance. */
    Map<String, Object> state() {
        ViewStatus discovery = homeView().status();
        ViewStatus config = client.config().status();
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("namespace", client.namespace().name());
        state.put("readOnly", readOnly);
        state.put("stale", discovery.stale() || config.stale());
        state.put("staleForSeconds", Math.max(discovery.staleFor().toSeconds(), config.staleFor().toSeconds()));
        state.put("lastSyncAt", discovery.lastSyncAt() == null ? null : discovery.lastSyncAt().toString());
        state.put("services", Instances.serviceRows(homeView(), services()));
        return state;
    }

    /**
     * From the service index the view follows, not from the services the console subscribed to: those are only
     * followed while a page watches, and the state is asked for also without one.
     */
    private List<String> services() {
        return serviceIds(homeView());
    }

    private static List<String> serviceIds(ServiceDiscovery discovery) {
        try {
            return discovery.getServices().stream().sorted().toList();
        } catch (LodestarException offline) {
            return List.of(); // Redis unreachable since the start: the staleness banner (or badge) says so
        }
    }

    /**
     * A list, or the page of it the query asks for ({@link Paging}); {@code filter} keeps the rows whose {@code key}
     * (the service's or config's id) contains it, ignoring case, as the page's filter box does.
     */
    private static Object paged(Map<String, String> query, List<Map<String, Object>> rows, String key) {
        Paging paging = Paging.of(query);
        if (paging == null) {
            return rows;
        }
        String filter = query.getOrDefault("filter", "").strip().toLowerCase(Locale.ROOT);
        return paging.page(filter.isEmpty() ? rows : rows.stream().filter(row -> String.valueOf(row.get(key))
                .toLowerCase(Locale.ROOT).contains(filter)).toList());
    }

    /** A service's detail with the page of its instances the query asks for, and their total, or all of them. */
    private static Map<String, Object> pagedService(Map<String, String> query, Map<String, Object> detail) {
        Paging paging = Paging.of(query);
        if (paging != null) {
            Map<String, Object> page = paging.page((List<?>) detail.get("instances"));
            detail.put("instances", page.get("items"));
            detail.put("total", page.get("total"));
            detail.put("offset", page.get("offset"));
            detail.put("limit", page.get("limit"));
        }
        return detail;
    }

    // ---- regions (lodestar console --home NAME --remote NAME=URI): each read from its own Redis, only home written

    /**
     * Every region the console reads, home first, each with its staleness and the services with an instance there;
     * no regions when the console names none. Asked for again by the page while it shows regions: a remote region's
     * changes do not come through the event stream, which follows home.
     */
    private Map<String, Object> regions() {
        List<Map<String, Object>> regions = new ArrayList<>();
        for (String region : client.regions()) {
            ServiceDiscovery discovery = client.discovery(region);
            ViewStatus status = discovery.status();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", region);
            row.put("home", region.equals(home()));
            row.put("stale", status.stale());
            row.put("staleForSeconds", status.staleFor().toSeconds());
            row.put("lastSyncAt", status.lastSyncAt() == null ? null : status.lastSyncAt().toString());
            row.put("services", Instances.serviceRows(discovery, serviceIds(discovery)));
            regions.add(row);
        }
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("home", home());
        view.put("regions", regions);
        return view;
    }

    /**
     * A service's instances in one region ({@code *}: in every region, home's first), each with its region and
     * whether the console may change it (home's only). Time left is not shown: it is read from home's Redis.
     */
    private Map<String, Object> regionService(String region, String id) {
        ServiceDiscovery discovery = region.equals(ALL_REGIONS) ? client.allRegions() : client.discovery(region);
        ServiceSnapshot snapshot = Instances.snapshot(discovery, id);
        List<Map<String, Object>> instances = Views.instances(snapshot, Instant.now(), Map.of());
        instances.forEach(row -> row.put("writable", !readOnly && home() != null && home().equals(row.get("region"))));
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("service", id);
        detail.put("region", region);
        detail.put("revision", snapshot.revision());
        detail.put("instances", instances);
        return detail;
    }

    /** A write that names a region other than home is refused before anything is read or written. */
    private void refuseRemoteRegion(String region) {
        if (region == null || region.equals(home())) {
            return;
        }
        if (!client.regions().contains(region)) {
            client.discovery(region); // an unknown name: the SDK's refusal, naming the regions there are
        }
        throw new IllegalArgumentException("region " + region + " is read-only in this console, which writes only"
                + " to its home region " + home() + ": change " + region + "'s instances from a console on "
                + region + "'s own Redis");
    }

    /**
     * Home's view without failover: the home pages show (and change) home's instances only, never a remote
     * region's that {@code discovery()} adds while home has none up.
     */
    private ServiceDiscovery homeView() {
        return home() == null ? client.discovery() : client.discovery(home());
    }

    /** @return the home region's name, or null when the console names no region */
    private String home() {
        return client.regions().isEmpty() ? null : client.regions().get(0);
    }

    /** For the event stream: a service that lost its last instance is shown empty. */
    Map<String, Object> service(String service) {
        return service(homeView().getSnapshot(service));
    }

    private Map<String, Object> service(ServiceSnapshot snapshot) {
        return Views.serviceDetail(snapshot, Instant.now(), ttlLeft.of(snapshot));
    }

    private Map<String, Object> config(String id) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", id);
        view.put("current", client.config().get(id).map(entry -> Views.config(entry, true)).orElse(null));
        List<Map<String, Object>> history = new ArrayList<>();
        client.config().history(id).forEach(entry -> history.add(Views.config(entry, true)));
        view.put("history", history);
        view.put("gray", client.config().gray(id).map(release -> GrayCommand.view(release, true)).orElse(null));
        if (view.get("current") == null && history.isEmpty()) {
            throw Configs.notFound(id); // a removed one keeps its history
        }
        view.put("applied", ConfigWhoCommand.rows(client.config().applied(id)));
        return view;
    }
}
