package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;

/** Reads of the registry straight from Redis: shared by the direct reader and the views' loads. */
final class RegistryReads {
    private static final Logger log = LoggerFactory.getLogger(RegistryReads.class);
    private final RedisBackend backend;
    private final Keys keys;

    RegistryReads(RedisBackend backend, Keys keys) {
        this.backend = backend;
        this.keys = keys;
    }

    /**
     * One service, atomically. {@code liveOnly} leaves out instances past their deadline that the sweep has not
     * removed yet (what a direct read shows); views keep them until the sweep's event (see read_service.lua).
     */
    CompletionStage<ServiceSnapshot> service(String serviceId, boolean liveOnly) {
        return serviceWithDigest(serviceId, liveOnly).thenApply(SyncedView.Versioned::value);
    }

    /** The service, with its digest (see common.lua) for the view; null when no write made one yet. */
    CompletionStage<SyncedView.Versioned<ServiceSnapshot>> serviceWithDigest(String serviceId, boolean liveOnly) {
        return Scripts.READ_SERVICE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                keys.service(serviceId).forRead(), liveOnly ? "1" : "0").thenApply(reply -> {
                    long revision = (Long) reply.get(0);
                    String digest = (String) reply.get(1);
                    String incarnation = (String) reply.get(2);
                    List<ServiceInstance> instances = new ArrayList<>((reply.size() - 3) / 2);
                    for (int i = 3; i + 1 < reply.size(); i += 2) {
                        String instanceId = (String) reply.get(i);
                        try {
                            instances.add(Json.instance(serviceId, instanceId, (String) reply.get(i + 1)));
                        } catch (RuntimeException unreadable) {
                            // one bad entry (written by another program) must not make the whole service unreadable
                            log.warn("Skipping unreadable instance {}/{}: {}", serviceId, instanceId,
                                    unreadable.getMessage());
                        }
                    }
                    return new SyncedView.Versioned<>(revision, new ServiceSnapshot(serviceId, revision, instances),
                            digest.isEmpty() ? null : digest, incarnation.isEmpty() ? null : incarnation);
                });
    }

    CompletionStage<Long> serviceRevision(String serviceId) {
        return backend.counter(keys.service(serviceId).revision());
    }

    /** Revision, digest and incarnation of a service, read together (the reconcile compares them). */
    CompletionStage<SyncedView.Versioned<Void>> serviceStamp(String serviceId) {
        Keys.ServiceKeys service = keys.service(serviceId);
        return backend.commands().mget(service.revision(), service.digest(), service.incarnation())
                .thenApply(values -> {
                    String revision = values.get(0).getValueOrElse(null);
                    return new SyncedView.Versioned<>(revision == null ? 0L : Long.parseLong(revision), null,
                            values.get(1).getValueOrElse(null), values.get(2).getValueOrElse(null));
                });
    }

    /** The index: revision first, then the sorted, unmodifiable set of services. */
    CompletionStage<SyncedView.Versioned<Set<String>>> services() {
        Keys.IndexKeys index = keys.services();
        return Scripts.READ_INDEX.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                index.forRead()).thenApply(reply -> {
                    Set<String> services = new TreeSet<>();
                    for (int i = 2; i < reply.size(); i++) {
                        services.add((String) reply.get(i));
                    }
                    String incarnation = (String) reply.get(1);
                    return new SyncedView.Versioned<>((Long) reply.get(0), Collections.unmodifiableSet(services),
                            null, incarnation.isEmpty() ? null : incarnation);
                });
    }

    CompletionStage<Long> servicesRevision() {
        return backend.counter(keys.services().revision());
    }
}
