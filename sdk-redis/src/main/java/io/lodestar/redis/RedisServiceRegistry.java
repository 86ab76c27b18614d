package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.AsyncServiceRegistry;
import io.lodestar.core.ClientHealth;
import io.lodestar.core.ConflictException;
import io.lodestar.core.LeaseListener;
import io.lodestar.core.LodestarException;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.Registration;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.Subscription;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Registry writes through Lua scripts, plus the leases of what this client registered: an ephemeral instance is
 * renewed every third of its TTL (with jitter, so a fleet does not renew in lock step), at once when the connection
 * to Redis is back, and registered again when a renewal finds it expired (e.g. while the process was paused).
 *
 * <p>A lease is created before its register script runs and removed before a deregister script runs, and a lease
 * acts only while it is still the one in {@link #leases} (each lease object is its own generation): so a deregister
 * or close racing a register or a renewal always wins, and nothing this client removed comes back through it. A
 * removal by another client or an operator leaves a tombstone in Redis that the owner's renewal reads, so that
 * removal sticks too.
 *
 * <p>A lease renews only the registration this client made: each stored instance carries its registering client's
 * owner token ({@link #owner}), which the lease's renewal names and renew_instance.lua checks. Another client's later
 * registration of the same id is that client's to keep alive; the lease stops on finding it (docs/redis.md,
 * "Leases").
 */
final class RedisServiceRegistry implements ServiceRegistry {
    private static final Logger log = LoggerFactory.getLogger(RedisServiceRegistry.class);
    /** The shortest a tombstone is kept (deregister_instance.lua keeps it three TTLs of the instance if longer). */
    private static final Duration TOMBSTONE = Duration.ofMinutes(1);
    /** Deadlines read per call of read_leases.lua. */
    private static final int LEASE_PAGE = 10_000;
    /** Replies of renew_instance.lua (-1: deregistered or evicted). */
    private static final long RENEWED = 1;
    private static final long GONE = 0;
    private static final long TAKEN_OVER = -2;
    /** An explicit renewal by a client without the lease: it renews whichever registration the id holds. */
    private static final String ANY_OWNER = "";

    private final RedisBackend backend;
    private final Keys keys;
    private final SyncedView<ServiceSnapshot, ServiceEvent> view;
    private final ScheduledExecutorService scheduler;
    private final String namespace;
    /** Completes the async API's stages (never Redis' I/O thread). */
    private final Executor callbacks;
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final AsyncServiceRegistry async = new Async();
    private volatile Instant lastRenewalAt;
    private final LongAdder lateRenewals = new LongAdder();
    private final LongAdder failedRenewals = new LongAdder();
    private final LongAdder takenOver = new LongAdder();
    private final List<LeaseListener> leaseListeners = new CopyOnWriteArrayList<>();
    /**
     * This client's owner token, stored with every instance it registers (not instance data: readers skip it, events
     * do not carry it). Not a secret, and not a security boundary (any writer may write anything): it tells this
     * client's leases from another registration of the same id. One per client, so a re-registration by the same
     * client with unchanged fields writes nothing.
     */
    private final String owner = String.format("%016x", new java.security.SecureRandom().nextLong());
    /** Registrations under way: close() waits for them, so none completes after it and stays in Redis. */
    private final Set<CompletableFuture<?>> registering = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;

    RedisServiceRegistry(RedisBackend backend, Keys keys, SyncedView<ServiceSnapshot, ServiceEvent> view,
                         ScheduledExecutorService scheduler, Executor callbacks, String namespace) {
        this.backend = backend;
        this.callbacks = callbacks;
        this.keys = keys;
        this.view = view;
        this.scheduler = scheduler;
        this.namespace = namespace;
        backend.addConnectionListener(new RedisBackend.ConnectionListener() {
            @Override
            public void connected(String node) {
                // Leases may have run late while Redis was away: renew them all now, not a third of a TTL later.
                leases.values().forEach(Lease::renewSoon);
            }

            @Override
            public void disconnected(String node) {
                // nothing to do: renewals fail and retry until the connection is back
            }
        });
    }

    // ---------------------------------------------------------------- sync API

    @Override
    public Registration register(ServiceInstance instance) {
        return Await.join(register0(instance), () -> "register " + describe(instance), backend);
    }

    @Override
    public void renew(String serviceId, String instanceId) {
        Await.join(renew0(serviceId, instanceId), () -> operation("renew", serviceId, instanceId), backend);
    }

    @Override
    public boolean deregister(String serviceId, String instanceId) {
        return Await.join(deregister0(serviceId, instanceId), () -> operation("deregister", serviceId, instanceId),
                backend);
    }

    @Override
    public boolean evict(String serviceId, String instanceId) {
        return Await.join(deregister0(serviceId, instanceId), () -> operation("evict", serviceId, instanceId), backend);
    }

    @Override
    public boolean purge(String serviceId) {
        return Await.join(purge0(serviceId), "purge service '" + serviceId + "'", backend);
    }

    @Override
    public ServiceInstance setMetadata(String serviceId, String instanceId, Map<String, String> metadata) {
        return Await.join(setMetadata0(serviceId, instanceId, metadata),
                () -> operation("set metadata of", serviceId, instanceId), backend);
    }

    @Override
    public ServiceInstance updateMetadata(String serviceId, String instanceId, Map<String, String> put,
                                          Set<String> remove) {
        return Await.join(updateMetadata0(serviceId, instanceId, put, remove),
                () -> operation("update metadata of", serviceId, instanceId), backend);
    }

    @Override
    public ServiceInstance setStatus(String serviceId, String instanceId, InstanceStatus status) {
        return Await.join(setStatus0(serviceId, instanceId, status),
                () -> operation("set status of", serviceId, instanceId), backend);
    }

    @Override
    public Map<String, Duration> timeToLive(String serviceId) {
        return Await.join(timeToLive0(serviceId), "read the leases of " + serviceId, backend);
    }

    @Override
    public AsyncServiceRegistry async() {
        return async;
    }

    // ---------------------------------------------------------------- operations

    private CompletionStage<Registration> register0(ServiceInstance instance) {
        CompletableFuture<Registration> registered = new CompletableFuture<>();
        registering.add(registered); // before the closing check: beginClose() either refuses it or waits for it
        registered.whenComplete((ok, failure) -> registering.remove(registered));
        try {
            Validation.requireNonNull("instance", instance);
            Validation.collector().writableStatus("status", instance.status()).throwIfInvalid();
            if (closing) {
                throw backend.closedException();
            }
            String key = leaseKey(instance.serviceId(), instance.instanceId());
            Lease lease = new Lease(key, instance);
            Lease replaced = leases.put(key, lease);
            if (replaced != null) {
                replaced.cancel();
            }
            // One stage after the script's reply, not a chain: it runs on Redis' I/O thread, ahead of every other
            // reply waiting on the shared connection.
            write(instance, "register").whenComplete((written, failure) -> {
                try {
                    if (failure == null ? written.instance().ephemeral() : replaced != null && instance.ephemeral()) {
                        // Renew what was registered; after a failure, go on renewing what this client renewed
                        // before (with the new fields), or a failed re-register would let a live instance expire.
                        // A no-op if a deregister cancelled the lease meanwhile.
                        lease.start(failure == null ? written.instance() : instance);
                        if (failure == null) {
                            keepIfRegisteredLast(lease, written.instance());
                        }
                    } else {
                        drop(lease);
                    }
                    if (failure != null) {
                        registered.completeExceptionally(Errors.unwrap(failure));
                    } else if (closing && written.instance().ephemeral()) {
                        registered.completeExceptionally(backend.closedException()); // close() deregisters it
                    } else {
                        registered.complete(new RedisRegistration(written.instance(), written.revision()));
                    }
                } catch (RuntimeException e) {
                    registered.completeExceptionally(e);
                }
            });
        } catch (LodestarException e) {
            registered.completeExceptionally(e);
        }
        return registered;
    }

    /**
     * Runs the register script, reports a new instance to the index and waits for this client's view. Completes
     * with null when a renewal's registration was refused because the instance was deregistered or evicted.
     */
    private CompletionStage<Written> write(ServiceInstance instance, String mode) {
        Keys.ServiceKeys serviceKeys = keys.service(instance.serviceId());
        return Scripts.REGISTER_INSTANCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                        serviceKeys.all(), instance.instanceId(), Json.instance(instance),
                        Long.toString(instance.ttl().toMillis()), mode, owner)
                .thenCompose(reply -> {
                    LuaScript script = Scripts.REGISTER_INSTANCE;
                    long revision = Reply.number(reply, 0, script);
                    String kind = Reply.text(reply, 1, script);
                    long registeredAt = Reply.number(reply, 2, script);
                    long count = Reply.number(reply, 3, script);
                    if ("deregistered".equals(kind)) {
                        return CompletableFuture.completedFuture(null);
                    }
                    // The instance was validated when it was built: its copy with the registration time (no
                    // builder) shares its frozen metadata, so neither the map is copied nor its rules run again;
                    // what runs again are the record's field checks, loops over a few short strings.
                    ServiceInstance registered = new ServiceInstance(instance.serviceId(), instance.instanceId(),
                            instance.host(), instance.port(), instance.secure(), instance.weight(), instance.status(),
                            instance.metadata(), instance.ttl(), Instant.ofEpochMilli(registeredAt));
                    // Only the first instance changes the set of services: later ones skip the round trip to
                    // the index (the sweeper repairs an index entry a crashed writer failed to report).
                    if ("registered".equals(kind) && count == 1L) {
                        return index(instance.serviceId(), revision, 1)
                                .thenCompose(ignored -> view.awaitRevision(instance.serviceId(), revision))
                                .thenApply(ignored -> new Written(registered, revision));
                    }
                    return view.awaitRevision(instance.serviceId(), revision)
                            .thenApply(ignored -> new Written(registered, revision));
                });
    }

    private CompletionStage<Map<String, Duration>> timeToLive0(String serviceId) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).throwIfInvalid();
            return leasePages(keys.service(serviceId).deadlines(), 0, new LinkedHashMap<>());
        });
    }

    /** read_leases.lua, a page at a time, until a page comes back short. */
    private CompletionStage<Map<String, Duration>> leasePages(String deadlines, long offset,
                                                              Map<String, Duration> left) {
        return Scripts.READ_LEASES.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                new String[] {deadlines}, Long.toString(offset), Integer.toString(LEASE_PAGE)).thenCompose(page -> {
                    long now = (Long) page.get(0);
                    for (int i = 1; i + 1 < page.size(); i += 2) {
                        long deadline = (long) Double.parseDouble((String) page.get(i + 1));
                        left.put((String) page.get(i), Duration.ofMillis(Math.max(0, deadline - now)));
                    }
                    int read = (page.size() - 1) / 2;
                    return read < LEASE_PAGE ? CompletableFuture.completedFuture(Collections.unmodifiableMap(left))
                            : leasePages(deadlines, offset + read, left);
                });
    }

    private CompletionStage<Void> renew0(String serviceId, String instanceId) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .throwIfInvalid();
            Lease lease = leases.get(leaseKey(serviceId, instanceId));
            if (lease != null) {
                return renewLease(lease).thenApply(alive -> {
                    if (!alive) {
                        throw removed(serviceId, instanceId);
                    }
                    return null;
                });
            }
            return renewScript(serviceId, instanceId, ANY_OWNER, 0).thenApply(renewed -> {
                if (renewed != RENEWED) {
                    throw renewed == GONE ? notFound(serviceId, instanceId) : removed(serviceId, instanceId);
                }
                return null;
            });
        });
    }

    /**
     * renew_instance.lua: {@link #RENEWED}, {@link #GONE} (expired or lost), -1 (deregistered or evicted) or
     * {@link #TAKEN_OVER} (registered by another owner; only when {@code owner} is not {@link #ANY_OWNER}).
     */
    private CompletionStage<Long> renewScript(String serviceId, String instanceId, String owner, long ttlMillis) {
        return Scripts.RENEW_INSTANCE.run(backend.commands(), ScriptOutputType.INTEGER,
                keys.service(serviceId).all(), instanceId, owner, Long.toString(ttlMillis));
    }

    /**
     * One renewal of a lease: completes with true while the lease lives on (registering the instance again if it
     * expired), false once it is dropped because the instance was removed on purpose or the lease was replaced.
     */
    private CompletionStage<Boolean> renewLease(Lease lease) {
        ServiceInstance instance = lease.instance;
        String serviceId = instance.serviceId();
        String instanceId = instance.instanceId();
        return renewScript(serviceId, instanceId, owner, instance.ttl().toMillis()).thenCompose(renewed -> {
            if (renewed == RENEWED) {
                return CompletableFuture.completedFuture(true);
            }
            if (renewed == TAKEN_OVER) {
                return CompletableFuture.completedFuture(dropTakenOver(lease));
            }
            if (renewed != GONE) {
                return CompletableFuture.completedFuture(dropRemoved(lease));
            }
            if (!lease.current()) {
                return CompletableFuture.completedFuture(false); // deregistered or registered anew meanwhile
            }
            log.info("Instance {}/{} is gone from Redis (it expired, e.g. while the process was paused, or Redis"
                    + " lost its data); registering it again", serviceId, instanceId);
            return write(instance, "renewal").thenApply(written -> {
                if (written == null) {
                    return dropRemoved(lease);
                }
                lease.instance = written.instance();
                return true;
            });
        });
    }

    /** Stops a lease whose instance another client or an operator removed; false, for {@link #renewLease}. */
    private boolean dropRemoved(Lease lease) {
        if (drop(lease)) {
            log.info("Instance {}/{} was deregistered or evicted by another client; no longer renewing it",
                    lease.instance.serviceId(), lease.instance.instanceId());
            tell(lease.instance, LeaseListener.Cause.REMOVED);
        }
        return false;
    }

    /** Stops a lease whose instance another registration replaced; false, for {@link #renewLease}. */
    private boolean dropTakenOver(Lease lease) {
        if (drop(lease)) {
            takenOver.increment();
            log.warn("Instance {}/{} was registered again by another client (or process) with the same id; that"
                    + " registration is its own to renew: no longer renewing it", lease.instance.serviceId(),
                    lease.instance.instanceId());
            tell(lease.instance, LeaseListener.Cause.TAKEN_OVER);
        }
        return false;
    }

    private void tell(ServiceInstance instance, LeaseListener.Cause cause) {
        for (LeaseListener listener : leaseListeners) {
            try {
                callbacks.execute(() -> {
                    try {
                        listener.leaseEnded(instance, cause);
                    } catch (RuntimeException e) {
                        log.warn("A lease listener failed on {}/{} ({})", instance.serviceId(),
                                instance.instanceId(), e.toString());
                    }
                });
            } catch (RejectedExecutionException closed) {
                log.debug("Lease listener not told of {}/{}: the client is closing", instance.serviceId(),
                        instance.instanceId());
            }
        }
    }

    @Override
    public Subscription addLeaseListener(LeaseListener listener) {
        Validation.requireNonNull("listener", listener);
        leaseListeners.add(listener);
        return () -> leaseListeners.remove(listener);
    }

    /**
     * A deregister on this client that cancelled the lease while its register was under way may have run in Redis
     * before the register (it then removed nothing, and the registration stands) or after it (it removed the
     * instance). In the first case the registration needs its lease: a fresh one, unless another registration of
     * the instance on this client holds one by now, or the client is closing.
     */
    private void keepIfRegisteredLast(Lease lease, ServiceInstance registered) {
        CompletionStage<Boolean> removal = lease.removal();
        if (removal == null) {
            return;
        }
        removal.thenAccept(removed -> {
            if (removed || closing) {
                return;
            }
            Lease kept = new Lease(lease.key, registered);
            if (leases.putIfAbsent(lease.key, kept) == null) {
                kept.start(registered);
            }
        });
    }

    /** Cancels a lease and forgets it unless another lease replaced it; true when it was the current one. */
    private boolean drop(Lease lease) {
        lease.cancel();
        return leases.remove(lease.key, lease);
    }

    /** Deregister and evict: one script, whose tombstone makes the removal stick against the owner's renewals. */
    private CompletionStage<Boolean> deregister0(String serviceId, String instanceId) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .throwIfInvalid();
            // Before the script is sent: a register whose script runs after this one reads the outcome (see
            // Lease#cancel(CompletionStage)).
            CompletableFuture<Boolean> outcome = new CompletableFuture<>();
            Lease lease = leases.remove(leaseKey(serviceId, instanceId));
            if (lease != null) {
                lease.cancel(outcome);
            }
            CompletionStage<List<Object>> script = Scripts.DEREGISTER_INSTANCE.run(backend.commands(),
                    ScriptOutputType.MULTI, keys.service(serviceId).all(), instanceId,
                    Long.toString(TOMBSTONE.toMillis()));
            // a failed deregister may not have run: the registration then stands (a tombstone stops it if it ran)
            CompletionStage<Boolean> removal = script.thenApply(reply ->
                    Reply.number(reply, 1, Scripts.DEREGISTER_INSTANCE) == 1L);
            removal.whenComplete((removed, failure) -> outcome.complete(failure == null && removed));
            return script.thenCompose(reply -> {
                        long revision = Reply.number(reply, 0, Scripts.DEREGISTER_INSTANCE);
                        boolean removed = Reply.number(reply, 1, Scripts.DEREGISTER_INSTANCE) == 1L;
                        long count = Reply.number(reply, 2, Scripts.DEREGISTER_INSTANCE);
                        if (removed && count == 0) {
                            return index(serviceId, revision, 0)
                                    .thenCompose(ignored -> view.awaitRevision(serviceId, revision))
                                    .thenApply(ignored -> removed);
                        }
                        return view.awaitRevision(serviceId, revision).thenApply(ignored -> removed);
                    });
        });
    }

    /**
     * Purges the service's keys, then its tombstone in the index (another slot, so another script): without that,
     * the index would take the reports of the service's next life, counting from revision 1, for late ones.
     */
    private CompletionStage<Boolean> purge0(String serviceId) {
        return guarded(() -> {
            Validation.requireServiceId(serviceId);
            return Scripts.PURGE_SERVICE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                    keys.service(serviceId).all(), serviceId).thenCompose(reply -> {
                        long revision = (Long) reply.get(1);
                        if ("conflict".equals(reply.get(0))) {
                            long count = (Long) reply.get(2);
                            throw new ConflictException("Cannot purge service '" + serviceId + "': it has " + count
                                    + (count == 1 ? " instance" : " instances") + " (revision " + revision
                                    + "); deregister or evict them first", serviceId, 0, revision);
                        }
                        boolean removed = (Long) reply.get(2) > 0;
                        return Scripts.PURGE_INDEX_ENTRY.<Long>run(backend.commands(), ScriptOutputType.INTEGER,
                                new String[] {keys.services().index()}, serviceId, Long.toString(revision))
                                .thenApply(forgotten -> removed || forgotten == 1L);
                    });
        });
    }

    private CompletionStage<ServiceInstance> setMetadata0(String serviceId, String instanceId,
                                                          Map<String, String> metadata) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .metadata("metadata", metadata).throwIfInvalid();
            return update(serviceId, instanceId, "replace", Json.object(metadata), "[]");
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
            return update(serviceId, instanceId, "merge", Json.object(put), Json.array(remove));
        });
    }

    private CompletionStage<ServiceInstance> setStatus0(String serviceId, String instanceId, InstanceStatus status) {
        return guarded(() -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .writableStatus("status", status).throwIfInvalid();
            return update(serviceId, instanceId, "status", status.name(), "[]");
        });
    }

    private CompletionStage<ServiceInstance> update(String serviceId, String instanceId, String mode, String value,
                                                    String removeKeys) {
        return Scripts.UPDATE_INSTANCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                keys.service(serviceId).all(), instanceId, mode, value, removeKeys).thenCompose(reply -> {
                    long revision = Reply.number(reply, 0, Scripts.UPDATE_INSTANCE);
                    String stored = Reply.textOrNull(reply, 1, Scripts.UPDATE_INSTANCE);
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
        Set<String> services = new TreeSet<>();
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
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            log.warn("Registrations still under way on close ({}); they expire after their TTL", e.toString());
        }
    }

    /** Deregisters everything this client still holds a lease for; bounded by the command timeout, never throws. */
    int deregisterAll() {
        return forEveryLease("deregister", instance -> deregister0(instance.serviceId(), instance.instanceId()),
                "they expire after their TTL");
    }

    /** Takes everything this client holds a lease for out of service; bounded, never throws. */
    int drain() {
        return forEveryLease("take out of service", instance -> setStatus0(instance.serviceId(),
                instance.instanceId(), InstanceStatus.OUT_OF_SERVICE), "they stay in service");
    }

    /** Runs one write per leased instance at once; returns how many succeeded within the command timeout. */
    private int forEveryLease(String action, Function<ServiceInstance, CompletionStage<?>> write, String otherwise) {
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (Lease lease : List.copyOf(leases.values())) {
            pending.add(write.apply(lease.instance).toCompletableFuture());
        }
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(backend.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            log.warn("Could not {} every instance of this client ({}); {}", action,
                    Errors.unwrap(e).toString(), otherwise);
        }
        return (int) pending.stream().filter(done -> done.isDone() && !done.isCompletedExceptionally()).count();
    }

    /** The state of this client's leases, for {@code LodestarClient.health()}. */
    ClientHealth.Registrations health() {
        return new ClientHealth.Registrations(leases.size(), lastRenewalAt, lateRenewals.sum(),
                failedRenewals.sum(), takenOver.sum());
    }

    void stopRenewing() {
        leases.values().forEach(Lease::cancel);
        leases.clear();
    }

    private NotFoundException notFound(String serviceId, String instanceId) {
        return new NotFoundException("instance", serviceId + "/" + instanceId, "No instance '" + instanceId
                + "' of service '" + serviceId + "' is registered in namespace '" + namespace + "'");
    }

    private NotFoundException removed(String serviceId, String instanceId) {
        return new NotFoundException("instance", serviceId + "/" + instanceId, "Instance '" + instanceId
                + "' of service '" + serviceId + "' was deregistered or evicted by another client in namespace '"
                + namespace + "'; it is not renewed any more (register it to bring it back)");
    }

    private static String describe(ServiceInstance instance) {
        return instance == null ? "null instance" : instance.serviceId() + "/" + instance.instanceId();
    }

    private static String operation(String verb, String serviceId, String instanceId) {
        return verb + " " + serviceId + "/" + instanceId;
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

    /**
     * Keeps one ephemeral instance alive; renews only after {@link #start} and while it is the current lease.
     *
     * <p>The pending renewal waits on Lettuce's timer ({@link RedisBackend#timer()}, a hashed wheel with 10 ms
     * ticks, 100 ms on a caller's resources by default), not on the scheduler's queue: a register runs
     * {@link #start} on Redis' I/O thread, and the scheduler's queue takes a lock and a heap insertion per lease (its
     * removal on cancel another), shared by every writing thread, while the wheel's insert and cancel are lock-free queue offers whose work the timer thread does on its
     * next tick. When due, the timer only hands the renewal to the scheduler, so renewals still run where they did
     * and nothing of Lodestar's runs on Lettuce's timer thread. A tick late at most, which a TTL of at least one
     * second (a renewal every third, late detection at a third) absorbs.
     */
    private final class Lease implements TimerTask {
        final String key;
        volatile ServiceInstance instance;
        /** Guarded by this: the one renewal due, a timer's {@link Timeout} or a task given to the scheduler now. */
        private Object pending;
        private boolean started;
        private volatile boolean cancelled;
        /** When the pending renewal is due (System.nanoTime()), to tell a starved or paused process. */
        private volatile long dueNanos;
        /** Guarded by this: the outcome of the deregister that cancelled this lease (true: it removed the instance). */
        private CompletionStage<Boolean> removal;

        Lease(String key, ServiceInstance instance) {
            this.key = key;
            this.instance = instance;
        }

        synchronized void start(ServiceInstance registered) {
            instance = registered;
            started = true;
            scheduleRegular();
        }

        boolean current() {
            return leases.get(key) == this;
        }

        void renewSoon() {
            schedule(0);
        }

        private void scheduleRegular() {
            long third = instance.ttl().toMillis() / 3;
            long jitter = third / 10;
            schedule(third - jitter + ThreadLocalRandom.current().nextLong(2 * jitter + 1));
        }

        /** Replaces the pending renewal, so renewals that overlap (e.g. one forced by a reconnect) stay one chain. */
        private synchronized void schedule(long delayMillis) {
            if (cancelled || !started) {
                return;
            }
            if (pending instanceof Timeout timeout) {
                timeout.cancel();
            }
            pending = null;
            dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
            try {
                if (delayMillis <= 0) {
                    Runnable now = new Runnable() {
                        @Override
                        public void run() {
                            if (claim(this)) {
                                renew();
                            }
                        }
                    };
                    pending = now;
                    scheduler.execute(now);
                } else {
                    pending = backend.timer().newTimeout(this, delayMillis, TimeUnit.MILLISECONDS);
                }
            } catch (IllegalStateException | RejectedExecutionException stopped) {
                // the scheduler or the Lettuce resources were shut down: the client is closing, nothing renews
                pending = null;
                log.debug("Renewal of {}/{} not scheduled: the client is closing ({})", instance.serviceId(),
                        instance.instanceId(), stopped.toString());
            }
        }

        /** Lettuce's timer thread: hands the due renewal to the scheduler, unless it was replaced or cancelled. */
        @Override
        public void run(Timeout timeout) {
            if (!claim(timeout)) {
                return;
            }
            try {
                scheduler.execute(this::renew);
            } catch (RejectedExecutionException closed) {
                log.debug("Renewal of {}/{} dropped: the client's scheduler is shut down", instance.serviceId(),
                        instance.instanceId());
            }
        }

        /** True, once, for the renewal still pending; false for one replaced by a later schedule or a cancel. */
        private synchronized boolean claim(Object due) {
            if (cancelled || pending != due) {
                return false;
            }
            pending = null;
            return true;
        }

        private void renew() {
            if (!current()) {
                return;
            }
            long lateMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - dueNanos);
            if (lateMillis > instance.ttl().toMillis() / 3) {
                lateRenewals.increment();
                log.warn("Renewal of {}/{} runs {} ms late (TTL {} ms): the process was paused (GC, suspended VM)"
                        + " or its scheduler starved; the instance may have expired meanwhile", instance.serviceId(),
                        instance.instanceId(), lateMillis, instance.ttl().toMillis());
            }
            long startedNanos = System.nanoTime();
            renewLease(this).whenComplete((alive, failure) -> {
                if (failure != null && (closing || cancelled)) {
                    // cut off by this client's own close: not a failure to report, nothing left to retry
                    log.debug("Renewal of {}/{} ended by the client's close", instance.serviceId(),
                            instance.instanceId());
                } else if (failure != null) {
                    failedRenewals.increment();
                    backend.commandFailed(failure);
                    if (Errors.translate(failure, "renew", backend.where(), backend.timeout())
                            instanceof UnavailableException) {
                        // An outage for this lease, live when it began: the sweeper notes it (see OutageEvidence), so
                        // the sweep spares the instance until this owner had the chance to renew after it.
                        backend.outages().seen(startedNanos);
                    }
                    log.warn("Renewing {}/{} failed, retrying in 1 s: {}", instance.serviceId(),
                            instance.instanceId(), Errors.unwrap(failure).getMessage());
                    schedule(Math.min(1000, instance.ttl().toMillis() / 3));
                } else if (alive) {
                    lastRenewalAt = Instant.now();
                    scheduleRegular();
                }
            });
        }

        /** Cancels the lease for a deregister whose outcome is {@code removal}. */
        synchronized void cancel(CompletionStage<Boolean> removal) {
            this.removal = removal;
            cancel();
        }

        synchronized CompletionStage<Boolean> removal() {
            return removal;
        }

        synchronized void cancel() {
            cancelled = true;
            if (pending instanceof Timeout timeout) {
                timeout.cancel();
            }
            pending = null;
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

        /** Never throws: a shutdown path must go on, and an instance that cannot be removed expires by its TTL. */
        @Override
        public void close() {
            try {
                deregister(instance.serviceId(), instance.instanceId());
            } catch (LodestarException e) {
                log.warn("Could not deregister {}/{} ({}); it expires after its TTL", instance.serviceId(),
                        instance.instanceId(), e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "Registration[" + instance.serviceId() + "/" + instance.instanceId() + " @" + revision + "]";
        }
    }

    /** One attempt of {@code registerWhenAvailable}; the next after {@code backoffMillis} (with jitter) if unavailable. */
    private void registerUntilAvailable(ServiceInstance instance, CompletableFuture<Registration> registered,
                                        long backoffMillis) {
        register0(instance).whenComplete((registration, failure) -> {
            if (failure == null) {
                registered.complete(registration);
                return;
            }
            LodestarException error = Errors.translate(failure, "register " + describe(instance), backend.where(),
                    backend.timeout());
            if (!(error instanceof UnavailableException) || closing) {
                registered.completeExceptionally(error);
                return;
            }
            log.info("Cannot register {} yet ({}); retrying in about {} ms", describe(instance), error.getMessage(),
                    backoffMillis);
            long delay = backoffMillis / 2 + ThreadLocalRandom.current().nextLong(backoffMillis / 2 + 1);
            try {
                scheduler.schedule(() -> registerUntilAvailable(instance, registered, Math.min(2_000,
                        backoffMillis * 2)), delay, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                registered.completeExceptionally(backend.closedException());
            }
        });
    }

    /** An async API stage: Lodestar exceptions only, completed on a Lodestar thread. */
    private <T> CompletionStage<T> published(CompletionStage<T> stage, String operation) {
        return Completions.publish(stage, operation, backend, callbacks);
    }

    /** The async API: the same operations, completing with Lodestar exceptions only (never a Lettuce one). */
    private final class Async implements AsyncServiceRegistry {
        @Override
        public CompletionStage<Registration> register(ServiceInstance instance) {
            return published(register0(instance), "register " + describe(instance));
        }

        @Override
        public CompletionStage<Registration> registerWhenAvailable(ServiceInstance instance) {
            CompletableFuture<Registration> registered = new CompletableFuture<>();
            registerUntilAvailable(instance, registered, 100);
            return published(registered, "register " + describe(instance));
        }

        @Override
        public CompletionStage<Void> renew(String serviceId, String instanceId) {
            return published(renew0(serviceId, instanceId), operation("renew", serviceId, instanceId));
        }

        @Override
        public CompletionStage<Boolean> deregister(String serviceId, String instanceId) {
            return published(deregister0(serviceId, instanceId),
                    operation("deregister", serviceId, instanceId));
        }

        @Override
        public CompletionStage<Boolean> evict(String serviceId, String instanceId) {
            return published(deregister0(serviceId, instanceId), operation("evict", serviceId, instanceId));
        }

        @Override
        public CompletionStage<ServiceInstance> setMetadata(String serviceId, String instanceId,
                                                            Map<String, String> metadata) {
            return published(setMetadata0(serviceId, instanceId, metadata),
                    operation("set metadata of", serviceId, instanceId));
        }

        @Override
        public CompletionStage<ServiceInstance> updateMetadata(String serviceId, String instanceId,
                                                               Map<String, String> put, Set<String> remove) {
            return published(updateMetadata0(serviceId, instanceId, put, remove),
                    operation("update metadata of", serviceId, instanceId));
        }

        @Override
        public CompletionStage<ServiceInstance> setStatus(String serviceId, String instanceId,
                                                          InstanceStatus status) {
            return published(setStatus0(serviceId, instanceId, status),
                    operation("set status of", serviceId, instanceId));
        }

        @Override
        public CompletionStage<Map<String, Duration>> timeToLive(String serviceId) {
            return published(timeToLive0(serviceId), "read the leases of " + serviceId);
        }
    }
}
