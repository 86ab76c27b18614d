package io.lodestar.core;

import io.lodestar.core.internal.Validation;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The health of one client, from local state: what a health endpoint reports.
 *
 * @param nodes         the Redis nodes the client uses (one for standalone and Sentinel, the masters of a cluster),
 *                      with their connection state
 * @param discovery     how current the discovery view is
 * @param config        how current the config view is
 * @param registrations the state of the instances this client registered
 * @param remoteRegions the remote regions the client reads, in the order named: reported, but never part of
 *                      {@link #healthy()} (a region far away that is down must not take the home service down)
 */
public record ClientHealth(List<Node> nodes, ViewStatus discovery, ViewStatus config, Registrations registrations,
                           List<Region> remoteRegions) {
    /**
     * Copies the lists.
     *
     * @throws InvalidArgumentException when a part is null or a list holds null
     */
    public ClientHealth {
        Validation.collector()
                .elements("nodes", nodes)
                .notNull("discovery", discovery)
                .notNull("config", config)
                .notNull("registrations", registrations)
                .elements("remoteRegions", remoteRegions)
                .throwIfInvalid();
        nodes = List.copyOf(nodes);
        remoteRegions = List.copyOf(remoteRegions);
    }

    /**
     * The health of a client that reads no remote region.
     *
     * @throws InvalidArgumentException when a part is null or the node list holds null
     */
    public ClientHealth(List<Node> nodes, ViewStatus discovery, ViewStatus config, Registrations registrations) {
        this(nodes, discovery, config, registrations, List.of());
    }

    /** @return true when every node is connected and no view is stale */
    public boolean healthy() {
        return nodes.stream().allMatch(Node::connected) && !discovery.stale() && !config.stale();
    }

    /**
     * Why the client is not {@link #healthy()}, for a DOWN status: the nodes it is not connected to (with their
     * problem, if one is known), else the views that are stale.
     *
     * @return the reason, or null when the client is healthy
     */
    public @Nullable String reason() {
        List<String> disconnected = nodes.stream().filter(node -> !node.connected())
                .map(node -> node.problem() == null ? node.address() : node.address() + " (" + node.problem() + ")")
                .toList();
        if (!disconnected.isEmpty()) {
            return "Redis not connected: " + String.join(", ", disconnected) + "; reads are served from the local view";
        }
        if (discovery.stale() || config.stale()) {
            return "view stale: discovery for " + discovery.staleFor() + because(discovery) + ", config for "
                    + config.staleFor() + because(config);
        }
        return null;
    }

    private static String because(ViewStatus view) {
        return view.staleReason() == null ? "" : " (" + view.staleReason() + ")";
    }

    /**
     * This health as plain maps of strings, numbers, booleans and lists, so any JSON codec renders it (what the
     * Spring and Micronaut health indicators show): {@code reason} (only when not healthy), {@code nodes},
     * {@code discovery}, {@code config}, {@code registrations} and, when there are any, {@code remoteRegions}. A time that never happened (a view never synced,
     * no renewal yet) is left out, not written as {@code "null"}.
     *
     * @return a new, mutable map in that order
     */
    public Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        String reason = reason();
        if (reason != null) {
            details.put("reason", reason);
        }
        details.put("nodes", nodes.stream().map(Node::details).toList());
        details.put("discovery", discovery.details());
        details.put("config", config.details());
        details.put("registrations", registrations.details());
        if (!remoteRegions.isEmpty()) {
            details.put("remoteRegions", remoteRegions.stream().map(Region::details).toList());
        }
        return details;
    }

    /**
     * A remote region, as this client reads it.
     *
     * @param name      the region
     * @param nodes     its Redis nodes, with their connection state
     * @param discovery how current this client's view of it is: stale while it cannot be reached
     */
    public record Region(String name, List<Node> nodes, ViewStatus discovery) {
        /**
         * Copies the node list.
         *
         * @throws InvalidArgumentException when a part is null or the node list holds null
         */
        public Region {
            Validation.collector().notNull("name", name).elements("nodes", nodes).notNull("discovery", discovery)
                    .throwIfInvalid();
            nodes = List.copyOf(nodes);
        }

        Map<String, Object> details() {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("name", name);
            details.put("nodes", nodes.stream().map(Node::details).toList());
            details.put("discovery", discovery.details());
            return details;
        }
    }

    static void putTime(Map<String, Object> details, String name, @Nullable Instant time) {
        if (time != null) {
            details.put(name, time.toString());
        }
    }

    /**
     * One Redis node.
     *
     * @param address {@code host:port}
     * @param connected whether the client has a working connection to it
     * @param since   when that state began, as far as this client saw it (null if it never connected)
     * @param problem why a node whose connection is open counts as not connected, e.g. {@code "no answer from
     *                127.0.0.1:6379 for 5 s"} (Redis frozen, or a partition that drops packets); null otherwise
     */
    public record Node(String address, boolean connected, @Nullable Instant since, @Nullable String problem) {
        /**
         * @throws InvalidArgumentException when the address is null
         */
        public Node {
            Validation.requireNonNull("address", address);
        }

        /**
         * A node without a problem to tell.
         *
         * @throws InvalidArgumentException when the address is null
         */
        public Node(String address, boolean connected, @Nullable Instant since) {
            this(address, connected, since, null);
        }

        Map<String, Object> details() {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("address", address);
            details.put("connected", connected);
            putTime(details, "since", since);
            if (problem != null) {
                details.put("problem", problem);
            }
            return details;
        }
    }

    /**
     * The instances this client registered and renews.
     *
     * @param held          how many ephemeral instances it keeps alive
     * @param lastRenewalAt when a renewal last succeeded (null if none yet)
     * @param lateRenewals  renewals that ran later than a third of their TTL after they were due (a starved or
     *                      paused process)
     * @param failedRenewals renewals that failed (Redis unreachable or refusing); each is retried
     * @param takenOver     leases stopped because another registration of the same instance (another client's, or
     *                      another process with the same instance id) replaced the one this client made; each is
     *                      also told to {@link ServiceRegistry#addLeaseListener lease listeners}
     */
    public record Registrations(int held, @Nullable Instant lastRenewalAt, long lateRenewals, long failedRenewals,
                                long takenOver) {
        /**
         * @throws InvalidArgumentException when a count is negative
         */
        public Registrations {
            Validation.collector()
                    .range("held", held, 0, Integer.MAX_VALUE)
                    .range("lateRenewals", lateRenewals, 0, Long.MAX_VALUE)
                    .range("failedRenewals", failedRenewals, 0, Long.MAX_VALUE)
                    .range("takenOver", takenOver, 0, Long.MAX_VALUE)
                    .throwIfInvalid();
        }

        Map<String, Object> details() {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("held", held);
            putTime(details, "lastRenewalAt", lastRenewalAt);
            details.put("lateRenewals", lateRenewals);
            details.put("failedRenewals", failedRenewals);
            details.put("takenOver", takenOver);
            return details;
        }
    }
}
