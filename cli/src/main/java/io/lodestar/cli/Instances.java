package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.model.ServiceSnapshot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
            throw new NotFoundException("instance", service + "/" + instance, "No instance '" + instance + "' of '"
                    + service + "' in namespace '" + client.namespace().name() + "'");
        }
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
