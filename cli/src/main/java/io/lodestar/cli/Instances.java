package io.lodestar.cli;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.Violation;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceSnapshot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The registry operations {@code lodestar} and the console share: the same not-found answers from both. */
final class Instances {
    private Instances() {
    }

    /**
     * A service asked for by id: without instances it is not found, whoever asks.
     *
     * @throws NotFoundException when the snapshot has no instance
     */
    static ServiceSnapshot requireSome(ServiceSnapshot snapshot, String namespace) {
        if (snapshot.instances().isEmpty()) {
            throw new NotFoundException("service", snapshot.serviceId(), "No instances of '" + snapshot.serviceId()
                    + "' in namespace '" + namespace + "'");
        }
        return snapshot;
    }

    /** @throws NotFoundException when the service has no such instance */
    static void evict(LodestarClient client, String service, String instance) {
        if (!client.registry().evict(service, instance)) {
            throw notFound(client, service, instance);
        }
    }

    /** @throws NotFoundException when the service has no such instance */
    static void deregister(LodestarClient client, String service, String instance) {
        if (!client.registry().deregister(service, instance)) {
            throw notFound(client, service, instance);
        }
    }

    private static NotFoundException notFound(LodestarClient client, String service, String instance) {
        return new NotFoundException("instance", service + "/" + instance, "No instance '" + instance + "' of '"
                + service + "' in namespace '" + client.namespace().name() + "'");
    }

    /**
     * Removes what a service without instances left behind ({@link io.lodestar.core.ServiceRegistry#purge}).
     *
     * @throws NotFoundException when it left nothing
     * @throws io.lodestar.core.ConflictException when it still has instances
     */
    static void purge(LodestarClient client, String service) {
        if (!client.registry().purge(service)) {
            throw new NotFoundException("service", service, "Service '" + service + "' left nothing to purge in"
                    + " namespace '" + client.namespace().name() + "'");
        }
    }

    /**
     * Metadata given as {@code KEY=VALUE} words, in order; the value may hold '=' and be empty.
     *
     * @throws InvalidArgumentException naming every word without '=' or with an empty key, and every key given
     *     twice (which of the two values was meant cannot be told)
     */
    static Map<String, String> metadata(List<String> entries) {
        Map<String, String> metadata = new LinkedHashMap<>();
        List<Violation> violations = new ArrayList<>();
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                violations.add(new Violation("metadata", Validation.show(entry), "KEY=VALUE with a non-empty KEY"));
                continue;
            }
            String key = entry.substring(0, eq);
            String previous = metadata.putIfAbsent(key, entry.substring(eq + 1));
            if (previous != null) {
                violations.add(new Violation(Validation.keyed("metadata", key),
                        Validation.show(previous) + " and " + Validation.show(entry.substring(eq + 1)),
                        "given once"));
            }
        }
        if (!violations.isEmpty()) {
            throw new InvalidArgumentException(violations);
        }
        return metadata;
    }

    /**
     * A row per service that has an instance (see {@link Views#service}), in the order given; a service the view
     * cannot load now (Redis unreachable) is left out, which the staleness banner or line already explains.
     */
    static List<Map<String, Object>> serviceRows(ServiceDiscovery discovery, Collection<String> services) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String service : services) {
            ServiceSnapshot snapshot = snapshot(discovery, service);
            if (!snapshot.instances().isEmpty()) {
                rows.add(Views.service(snapshot));
            }
        }
        return rows;
    }

    /** The service's snapshot; empty while the view cannot load it (Redis unreachable). */
    static ServiceSnapshot snapshot(ServiceDiscovery discovery, String service) {
        try {
            return discovery.getSnapshot(service);
        } catch (LodestarException offline) {
            return ServiceSnapshot.empty(service);
        }
    }

    /**
     * Time left per ephemeral instance, read from Redis (no view knows deadlines); empty while Redis cannot be
     * asked, which the staleness banner or line already says.
     */
    static Map<String, Duration> ttlLeft(LodestarClient client, String service) {
        try {
            return client.registry().timeToLive(service);
        } catch (LodestarException unavailable) {
            return Map.of();
        }
    }
}
