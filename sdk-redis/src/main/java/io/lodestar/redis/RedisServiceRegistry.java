package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.AsyncServiceRegistry;
import io.lodestar.core.LodestarException;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.Registration;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.Validation;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Registry writes through Lua scripts, plus the leases of what this client registered: an ephemeral instance is
 * renewed every third of its TTL (with jitter, so a fleet does not renew in lock step) and registered again when a
 * renewal finds it gone (it expired while the process was paused).
 */
final class RedisServiceRegistry implements ServiceRegistry {
    private static final Logger log = LoggerFactory.getLogger(RedisServiceRegistry.class);

    private final RedisBackend backend;
    private final Keys keys;
    private final SyncedView<ServiceSnapshot, ServiceEvent> view;
    private final ScheduledExecutorService scheduler;
    private final String namespace;
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    /** Registrations under way: close() waits for them, so none completes after it and stays in Redis. */
    private final Set<CompletableFuture<?>> registering = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;

    RedisServiceRegistry(RedisBackend backend, Keys keys, SyncedView<ServiceSnapshot, ServiceEvent> view,
                         ScheduledExecutorService scheduler, String namespace) {
        this.backend = backend;
        this.keys = keys;
        this.view = view;
        this.scheduler = scheduler;
        this.namespace = namespace;
    }

    // ---------------------------------------------------------------- sync API

    @Override
    public Registration register(ServiceInstance instance) {
        return Await.join(register0(instance), "register " + describe(instance), backend);
    }

    @Override
    public void renew(String serviceId, String instanceId) {
        Await.join(renew0(serviceId, instanceId), "renew " + serviceId + "/" + instanceId, backend);
    }

    @Override
    public boolean deregister(String serviceId, String instanceId) {
        return Await.join(deregister0(serviceId, instanceId), "deregister " + serviceId + "/" + instanceId, backend);
    }

    @Override
    public ServiceInstance setMetadata(String serviceId, String instanceId, Map<String, String> metadata) {
        return Await.join(setMetadata0(serviceId, instanceId, metadata),
                "set metadata of " + serviceId + "/" + instanceId, backend);
    }

    @Override
    public ServiceInstance updateMetadata(String serviceId, String instanceId, Map<String, String> put,
                                          Set<String> remove) {
        return Await.join(updateMetadata0(serviceId, instanceId, put, remove),
                "update metadata of " + serviceId + "/" + instanceId, backend);
    }

    @Override
    public ServiceInstance setStatus(String serviceId, String instanceId, InstanceStatus status) {
        return Await.join(setStatus0(serviceId, instanceId, status),
                "set status of " + serviceId + "/" + instanceId, backend);
    }

    @Override
    public AsyncServiceRegistry async() {
        return new AsyncServiceRegistry() {
            @Override
            public CompletionStage<Registration> register(ServiceInstance instance) {
                return register0(instance);
            }

            @Override
            public CompletionStage<Void> renew(String serviceId, String instanceId) {
                return renew0(serviceId, instanceId);
            }

            @Override
            public CompletionStage<Boolean> deregister(String serviceId, String instanceId) {
                return deregister0(serviceId, instanceId);
            }

            @Override
            public CompletionStage<ServiceInstance> setMetadata(String serviceId, String instanceId,
                                                                Map<String, String> metadata) {
                return setMetadata0(serviceId, instanceId, metadata);
            }

            @Override
            public CompletionStage<ServiceInstance> updateMetadata(String serviceId, String instanceId,
                                                                   Map<String, String> put, Set<String> remove) {
                return updateMetadata0(serviceId, instanceId, put, remove);
            }

            @Override
            public CompletionStage<ServiceInstance> setStatus(String serviceId, String instanceId,
                                                              InstanceStatus status) {
                return setStatus0(serviceId, instanceId, status);
            }
        };
    }

    // ---------------------------------------------------------------- operations

    private CompletionStage<Registration> register0(ServiceInstance instance) {
        CompletableFuture<Registration> registered = new CompletableFuture<>();
        registering.add(registered); // before the closing check: beginClose() either refuses it or waits for it
        registered.whenComplete((ok, failure) -> registering.remove(registered));
        guarded(() -> {
            Validation.requireNonNull("instance", instance);
            if (closing) {
                throw backend.closedException();
            }
            return write(instance).thenApply(written -> {
                String key = leaseKey(instance.serviceId(), instance.instanceId());
                Lease lease = written.instance().ephemeral() ? new Lease(written) : null;
                Lease replaced = lease == null ? leases.remove(key) : leases.put(key, lease);
                if (replaced != null) {
                    replaced.cancel();
                }
                if (lease != null) {
                    lease.schedule();
                }
                if (closing && lease != null) { // close() began meanwhile and deregisters the lease
                    throw backend.closedException();
                }
                return new RedisRegistration(written.instance(), written.revision());
            });
        }).whenComplete((registration, failure) -> {
            if (failure == null) {
                registered.complete(registration);
            } else {
                registered.completeExceptionally(Errors.unwrap(failure));
            }
        });
        return registered;
    }

    /** Runs the register script, reports a new instance to the index and waits for this client's view. */
    private CompletionStage<Written> write(ServiceInstance instance) {
        Keys.ServiceKeys serviceKeys = keys.service(instance.serviceId());
        return Scripts.REGISTER_INSTANCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                        serviceKeys.all(), instance.instanceId(), Json.instance(instance),
                        Long.toString(instance.ttl().toMillis()))
                .thenCompose(reply -> {
                    long revision = (Long) reply.get(0);
                    String kind = (String) reply.get(1);
                    ServiceInstance registered = instance.toBuilder()
                            .registeredAt(Instant.ofEpochMilli((Long) reply.get(2))).build();
                    // Only the first instance changes the set of services: later ones skip the round trip to
                    // the index (the sweeper repairs an index entry a crashed writer failed to report).
                    CompletionStage<?> indexed = "registered".equals(kind) && (Long) reply.get(3) == 1L
                            ? index(instance.serviceId(), revision, 1)
                            : CompletableFuture.completedFuture(null);
                    return indexed.thenCompose(ignored -> view.awaitRevision(instance.serviceId(), revision))
                            .thenApply(ignored -> new Written(registered, revision));
                });
    }

    private CompletionStage<Void> renew0(String serviceId, String instanceId) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .throwIfInvalid();
            Lease lease = leases.get(leaseKey(serviceId, instanceId));
            long ttl = lease == null ? 0 : lease.instance.ttl().toMillis();
            return Scripts.RENEW_INSTANCE.<Long>run(backend.commands(), ScriptOutputType.INTEGER,
                    keys.service(serviceId).all(), instanceId, Long.toString(ttl)).thenCompose(renewed -> {
                        if (renewed == 1L) {
                            return CompletableFuture.completedFuture(null);
                        }
                        if (lease == null) {
                            throw notFound(serviceId, instanceId);
                        }
                        log.info("Instance {}/{} is gone from Redis (it expired, e.g. while the process was"
                                + " paused, or Redis lost its data); registering it again", serviceId, instanceId);
                        return write(lease.instance).thenAccept(written -> lease.instance = written.instance());
                    });
        });
    }

    private CompletionStage<Boolean> deregister0(String serviceId, String instanceId) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .throwIfInvalid();
            Lease lease = leases.remove(leaseKey(serviceId, instanceId));
            if (lease != null) {
                lease.cancel();
            }
            return Scripts.DEREGISTER_INSTANCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                    keys.service(serviceId).all(), instanceId).thenCompose(reply -> {
                        long revision = (Long) reply.get(0);
                        boolean removed = (Long) reply.get(1) == 1L;
                        long count = (Long) reply.get(2);
                        CompletionStage<?> indexed = removed && count == 0
                                ? index(serviceId, revision, 0) : CompletableFuture.completedFuture(null);
                        return indexed.thenCompose(ignored -> view.awaitRevision(serviceId, revision))
                                .thenApply(ignored -> removed);
                    });
        });
    }

    private CompletionStage<ServiceInstance> setMetadata0(String serviceId, String instanceId,
                                                          Map<String, String> metadata) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .metadata("metadata", metadata).throwIfInvalid();
            return update(serviceId, instanceId, "replace", Json.write(metadata), "[]");
        });
    }

    private CompletionStage<ServiceInstance> updateMetadata0(String serviceId, String instanceId,
                                                             Map<String, String> put, Set<String> remove) {
        return guarded(() -> {
            Validation.Collector checks = Validation.collector().serviceId("serviceId", serviceId)
                    .instanceId("instanceId", instanceId).metadata("put", put).notNull("remove", remove);
            if (remove != null) {
                remove.forEach(key -> checks.check(key != null, "remove", remove, "a set of non-null keys"));
            }
            checks.throwIfInvalid();
            return update(serviceId, instanceId, "merge", Json.write(put), Json.array(new ArrayList<>(remove)));
        });
    }

    private CompletionStage<ServiceInstance> setStatus0(String serviceId, String instanceId, InstanceStatus status) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .notNull("status", status).throwIfInvalid();
            return update(serviceId, instanceId, "status", status.name(), "[]");
        });
    }

    private CompletionStage<ServiceInstance> update(String serviceId, String instanceId, String mode, String value,
                                                    String removeKeys) {
        return Scripts.UPDATE_INSTANCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                keys.service(serviceId).all(), instanceId, mode, value, removeKeys).thenCompose(reply -> {
                    long revision = (Long) reply.get(0);
                    String stored = reply.size() > 1 ? (String) reply.get(1) : null;
                    if (stored == null) {
                        throw notFound(serviceId, instanceId);
                    }
                    ServiceInstance updated = Json.instance(serviceId, instanceId, stored);
                    Lease lease = leases.get(leaseKey(serviceId, instanceId));
                    if (lease != null) {
                        lease.instance = updated;
                    }
                    return view.awaitRevision(serviceId, revision).thenApply(ignored -> updated);
                });
    }

    /** Reports a service's instance count to the namespace index (see index_service.lua). */
    CompletionStage<Long> index(String serviceId, long revision, long count) {
        return Scripts.INDEX_SERVICE.run(backend.commands(), ScriptOutputType.INTEGER, keys.services().all(),
                serviceId, Long.toString(revision), Long.toString(count));
    }

    /** Services this client keeps registrations of (the sweeper sweeps them even if the index missed them). */
    Set<String> leasedServices() {
        Set<String> services = new java.util.TreeSet<>();
        leases.values().forEach(lease -> services.add(lease.instance.serviceId()));
        return services;
    }

    /**
     * Refuses new registrations and waits (bounded by the command timeout) for those under way, so that
     * {@link #deregisterAll()} sees every lease.
     */
    void beginClose() {
        closing = true;
        try {
            CompletableFuture.allOf(registering.toArray(CompletableFuture[]::new)).exceptionally(failure -> null)
                    .get(backend.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("Registrations still under way on close ({}); they expire after their TTL", e.toString());
        }
    }

    /** Deregisters everything this client still holds a lease for; bounded by the command timeout. */
    void deregisterAll() {
        List<CompletableFuture<Boolean>> pending = new ArrayList<>();
        for (Lease lease : List.copyOf(leases.values())) {
            pending.add(deregister0(lease.instance.serviceId(), lease.instance.instanceId()).toCompletableFuture());
        }
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(backend.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("Could not deregister every instance on close ({}); they expire after their TTL", e.toString());
        }
    }

    void stopRenewing() {
        leases.values().forEach(Lease::cancel);
        leases.clear();
    }

    private NotFoundException notFound(String serviceId, String instanceId) {
        return new NotFoundException("instance", serviceId + "/" + instanceId, "No instance '" + instanceId
                + "' of service '" + serviceId + "' is registered in namespace '" + namespace + "'");
    }

    private static String describe(ServiceInstance instance) {
        return instance == null ? "null instance" : instance.serviceId() + "/" + instance.instanceId();
    }

    private static String leaseKey(String serviceId, String instanceId) {
        return serviceId + '\u0000' + instanceId;
    }

    /** Input errors of async calls fail the stage instead of being thrown. */
    private static <T> CompletionStage<T> guarded(Supplier<CompletionStage<T>> operation) {
        try {
            return operation.get();
        } catch (LodestarException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private record Written(ServiceInstance instance, long revision) {
    }

    /** Keeps one ephemeral instance alive. */
    private final class Lease {
        volatile ServiceInstance instance;
        private volatile ScheduledFuture<?> next;
        private volatile boolean cancelled;

        Lease(Written written) {
            this.instance = written.instance();
        }

        void schedule() {
            long third = instance.ttl().toMillis() / 3;
            long jitter = third / 10;
            schedule(third - jitter + ThreadLocalRandom.current().nextLong(2 * jitter + 1));
        }

        private void schedule(long delayMillis) {
            if (!cancelled) {
                next = scheduler.schedule(this::renew, delayMillis, TimeUnit.MILLISECONDS);
            }
        }

        private void renew() {
            renew0(instance.serviceId(), instance.instanceId()).whenComplete((ok, failure) -> {
                if (failure == null) {
                    schedule();
                } else {
                    log.warn("Renewing {}/{} failed, retrying in 1 s: {}", instance.serviceId(),
                            instance.instanceId(), Errors.unwrap(failure).getMessage());
                    schedule(Math.min(1000, instance.ttl().toMillis() / 3));
                }
            });
        }

        void cancel() {
            cancelled = true;
            ScheduledFuture<?> scheduled = next;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }
    }

    private final class RedisRegistration implements Registration {
        private final ServiceInstance instance;
        private final long revision;

        RedisRegistration(ServiceInstance instance, long revision) {
            this.instance = instance;
            this.revision = revision;
        }

        @Override
        public ServiceInstance instance() {
            return instance;
        }

        @Override
        public long revision() {
            return revision;
        }

        @Override
        public void close() {
            deregister(instance.serviceId(), instance.instanceId());
        }

        @Override
        public String toString() {
            return "Registration[" + instance.serviceId() + "/" + instance.instanceId() + " @" + revision + "]";
        }
    }
}
