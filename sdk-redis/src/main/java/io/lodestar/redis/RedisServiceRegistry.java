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
import io.lodestar.redis.Calls.Call;
import io.lodestar.redis.Leases.Lease;
import io.lodestar.redis.Leases.Outcome;
import io.lodestar.redis.internal.time.Backoff;
import io.lodestar.redis.internal.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * Registry writes through Lua scripts. The leases of what this client registered, and when they are renewed, are
 * {@link Leases}'; this class runs the scripts a renewal needs, registering an instance again when its renewal finds
 * it expired (e.g. while the process was paused).
 *
 * <p>A lease renews only the registration this client made: each stored instance carries its registering client's
 * owner token ({@link #owner}), which the lease's renewal names and renew_instance.lua checks. Another client's later
 * registration of the same id is that client's to keep alive; the lease stops on finding it (docs/redis.md,
 * "Leases"). A removal by another client or an operator leaves a tombstone in Redis that the owner's renewal reads,
 * so that removal sticks too.
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
    /** registerWhenAvailable's waits between attempts: 50-100 ms at first, doubling up to 1-2 s. */
    private static final Backoff REGISTER_RETRY = new Backoff(100, 2_000);

    private final RedisBackend backend;
    private final Keys keys;
    /** The home region, stamped on what a write returns (whatever the caller's instance said), or null. */
    private final String region;
    private final SyncedView<ServiceSnapshot, ServiceEvent> view;
    /** Times registerWhenAvailable's retries: the views' clock, so the client has one source of time. */
    private final Clock clock;
    /** Jitter of leases and retries: the views' generator. */
    private final RandomGenerator random;
    private final String namespace;
    private final Calls calls;
    private final Leases leases;
    private final AsyncServiceRegistry async = new Async();
    /**
     * This client's owner token, stored with every instance it registers (not instance data: readers skip it, events
     * do not carry it). Not a secret, and not a security boundary (any writer may write anything): it tells this
     * client's leases from another registration of the same id. One per client, so a re-registration by the same
     * client with unchanged fields writes nothing.
     */
    private final String owner = String.format("%016x", new SecureRandom().nextLong());
    /**
     * Draws each write's token, the digest its event carries (see publish in stamps.lua): unpredictable, so that a
     * forged event cannot carry the digest of the real event of its revision; drawn here rather than hashed by
     * Redis, whose time is the budget (issue 27).
     */
    private final SecureRandom writeTokens = new SecureRandom();
    /** Registrations under way: close() waits for them, so none completes after it and stays in Redis. */
    private final Set<CompletableFuture<?>> registering = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;
    /** Told of every instance this client registered (the config service takes the first as its identity). */
    private volatile Consumer<ServiceInstance> onRegistered = instance -> { };

    RedisServiceRegistry(RedisBackend backend, Keys keys, SyncedView<ServiceSnapshot, ServiceEvent> view,
                         SyncedView.Shared views, ScheduledExecutorService scheduler, Executor callbacks,
                         String namespace, String region) {
        this.backend = backend;
        this.region = region;
        this.keys = keys;
        this.view = view;
        this.clock = views.clock();
        this.random = views.random();
        this.namespace = namespace;
        this.calls = new Calls(backend, callbacks);
        this.leases = new Leases(new WheelClock(backend.timer(), scheduler), random, new Renewal(), () -> closing,
                callbacks);
        backend.addConnectionListener(new RedisBackend.ConnectionListener() {
            @Override
            public void connected(String node) {
                // Leases may have run late while Redis was away: renew them all now, not a third of a TTL later.
                leases.renewAllSoon();
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
        return register0(instance).join();
    }

    @Override
    public void renew(String serviceId, String instanceId) {
        renew0(serviceId, instanceId).join();
    }

    @Override
    public boolean deregister(String serviceId, String instanceId) {
        return deregister0("deregister", serviceId, instanceId).join();
    }

    @Override
    public boolean evict(String serviceId, String instanceId) {
        return deregister0("evict", serviceId, instanceId).join();
    }

    @Override
    public boolean purge(String serviceId) {
        return purge0(serviceId).join();
    }

    @Override
    public ServiceInstance setMetadata(String serviceId, String instanceId, Map<String, String> metadata) {
        return setMetadata0(serviceId, instanceId, metadata).join();
    }

    @Override
    public ServiceInstance updateMetadata(String serviceId, String instanceId, Map<String, String> put,
                                          Set<String> remove) {
        return updateMetadata0(serviceId, instanceId, put, remove).join();
    }

    @Override
    public ServiceInstance setStatus(String serviceId, String instanceId, InstanceStatus status) {
        return setStatus0(serviceId, instanceId, status).join();
    }

    @Override
    public ServiceInstance setWeight(String serviceId, String instanceId, int weight) {
        return setWeight0(serviceId, instanceId, weight).join();
    }

    @Override
    public Map<String, Duration> timeToLive(String serviceId) {
        return timeToLive0(serviceId).join();
    }

    @Override
    public AsyncServiceRegistry async() {
        return async;
    }

    // ---------------------------------------------------------------- operations

    private Call<Registration> register0(ServiceInstance instance) {
        return calls.start(() -> "register " + describe(instance), () -> {
            CompletableFuture<Registration> registered = new CompletableFuture<>();
            registering.add(registered); // before the closing check: beginClose() either refuses it or waits for it
            registered.whenComplete((ok, failure) -> registering.remove(registered));
            try {
                Validation.requireNonNull("instance", instance);
                Validation.collector().writableStatus("status", instance.status()).throwIfInvalid();
                if (closing) {
                    throw backend.closedException();
                }
                Lease lease = leases.open(instance);
                // One stage after the script's reply, not a chain: it runs on Redis' I/O thread, ahead of every
                // other reply waiting on the shared connection.
                write(instance, "register").whenComplete((written, failure) -> {
                    try {
                        if (failure == null ? written.instance().ephemeral()
                                : lease.replacedAnother() && instance.ephemeral()) {
                            // Renew what was registered; after a failure, go on renewing what this client renewed
                            // before (with the new fields), or a failed re-register would let a live instance
                            // expire. A no-op if a deregister cancelled the lease meanwhile.
                            lease.start(failure == null ? written.instance() : instance);
                            if (failure == null) {
                                leases.keepIfRegisteredLast(lease, written.instance());
                            }
                        } else {
                            leases.drop(lease);
                        }
                        if (failure != null) {
                            registered.completeExceptionally(Errors.unwrap(failure));
                        } else if (closing && written.instance().ephemeral()) {
                            registered.completeExceptionally(backend.closedException()); // close() deregisters it
                        } else {
                            onRegistered.accept(written.instance());
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
        });
    }

    /** Sets who is told of every instance this client registers (see {@link RedisConfigService#identify}). */
    void onRegistered(Consumer<ServiceInstance> listener) {
        this.onRegistered = listener;
    }

    /**
     * Runs the register script, reports a new instance to the index and waits for this client's view. Completes
     * with null when a renewal's registration was refused because the instance was deregistered or evicted.
     */
    private CompletionStage<Written> write(ServiceInstance instance, String mode) {
        Keys.ServiceKeys serviceKeys = keys.service(instance.serviceId());
        return Scripts.REGISTER_INSTANCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                        serviceKeys.all(), instance.instanceId(), Json.instance(instance),
                        Long.toString(instance.ttl().toMillis()), mode, owner, writeToken())
                .thenCompose(reply -> {
                    LuaScript script = Scripts.REGISTER_INSTANCE;
                    long revision = Reply.number(reply, 0, script);
                    String kind = Reply.text(reply, 1, script);
                    long registeredAt = Reply.number(reply, 2, script);
                    boolean first = Reply.number(reply, 3, script) == 1L;
                    if ("deregistered".equals(kind)) {
                        return CompletableFuture.completedFuture(null);
                    }
                    // The instance was validated when it was built: its copy with the registration time (no
                    // builder) shares its frozen metadata, so neither the map is copied nor its rules run again;
                    // what runs again are the record's field checks, loops over a few short strings.
                    ServiceInstance registered = new ServiceInstance(instance.serviceId(), instance.instanceId(),
                            instance.host(), instance.port(), instance.secure(), instance.weight(), instance.status(),
                            instance.metadata(), instance.ttl(), Instant.ofEpochMilli(registeredAt), region);
                    // Only the first instance changes the set of services: later ones skip the round trip to
                    // the index (the sweeper repairs an index entry a crashed writer failed to report).
                    return Calls.settle(first ? () -> index(instance.serviceId(), revision, 1) : null, view,
                            instance.serviceId(), revision, new Written(registered, revision));
                });
    }

    private Call<Map<String, Duration>> timeToLive0(String serviceId) {
        return calls.start(() -> "read the leases of " + serviceId, () -> {
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

    private Call<Void> renew0(String serviceId, String instanceId) {
        return calls.start(() -> operation("renew", serviceId, instanceId), () -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .throwIfInvalid();
            Lease lease = leases.get(serviceId, instanceId);
            if (lease != null) {
                return leases.renew(lease).thenApply(alive -> {
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

    /** The scripts of a lease's renewal, and what a failed one tells the client. */
    private final class Renewal implements Leases.Renewal {

        /** Renews the registration this client made, registering it again if it expired. */
        @Override
        public CompletionStage<Outcome> renew(Lease lease) {
            ServiceInstance instance = lease.instance;
            String serviceId = instance.serviceId();
            String instanceId = instance.instanceId();
            return renewScript(serviceId, instanceId, owner, instance.ttl().toMillis()).thenCompose(renewed -> {
                if (renewed == RENEWED) {
                    return CompletableFuture.completedFuture(Outcome.RENEWED);
                }
                if (renewed == TAKEN_OVER) {
                    return CompletableFuture.completedFuture(Outcome.TAKEN_OVER);
                }
                if (renewed != GONE) {
                    return CompletableFuture.completedFuture(Outcome.REMOVED);
                }
                if (!lease.current()) {
                    return CompletableFuture.completedFuture(Outcome.REPLACED); // deregistered or registered anew
                }
                log.info("Instance {}/{} is gone from Redis (it expired, e.g. while the process was paused, or Redis"
                        + " lost its data); registering it again", serviceId, instanceId);
                return write(instance, "renewal").thenApply(written -> {
                    if (written == null) {
                        return Outcome.REMOVED;
                    }
                    lease.instance = written.instance();
                    return Outcome.RENEWED;
                });
            });
        }

        @Override
        public void failed(Throwable failure, long startedNanos) {
            backend.commandFailed(failure);
            if (Errors.translate(failure, "renew", backend.where(), backend.timeout())
                    instanceof UnavailableException) {
                // An outage for this lease, live when it began: the sweeper notes it (see OutageEvidence), so
                // the sweep spares the instance until this owner had the chance to renew after it.
                backend.outages().seen(startedNanos);
            }
        }
    }

    @Override
    public Subscription addLeaseListener(LeaseListener listener) {
        return leases.addListener(listener);
    }

    /** Deregister and evict: one script, whose tombstone makes the removal stick against the owner's renewals. */
    private Call<Boolean> deregister0(String verb, String serviceId, String instanceId) {
        return calls.start(() -> operation(verb, serviceId, instanceId), () -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .throwIfInvalid();
            // Before the script is sent: a register whose script runs after this one reads the outcome (see
            // Leases#keepIfRegisteredLast).
            CompletableFuture<Boolean> outcome = new CompletableFuture<>();
            leases.cancel(serviceId, instanceId, outcome);
            CompletionStage<List<Object>> script = Scripts.DEREGISTER_INSTANCE.run(backend.commands(),
                    ScriptOutputType.MULTI, keys.service(serviceId).all(), instanceId,
                    Long.toString(TOMBSTONE.toMillis()), verb, // "evict" marks the event (see the script)
                    writeToken());
            // a failed deregister may not have run: the registration then stands (a tombstone stops it if it ran)
            CompletionStage<Boolean> removal = script.thenApply(reply ->
                    Reply.number(reply, 1, Scripts.DEREGISTER_INSTANCE) == 1L);
            removal.whenComplete((removed, failure) -> outcome.complete(failure == null && removed));
            return script.thenCompose(reply -> {
                        long revision = Reply.number(reply, 0, Scripts.DEREGISTER_INSTANCE);
                        boolean removed = Reply.number(reply, 1, Scripts.DEREGISTER_INSTANCE) == 1L;
                        long count = Reply.number(reply, 2, Scripts.DEREGISTER_INSTANCE);
                        return Calls.settle(removed && count == 0 ? () -> index(serviceId, revision, 0) : null,
                                view, serviceId, revision, removed);
                    });
        });
    }

    /**
     * Purges the service's keys, then its tombstone in the index (another slot, so another script): without that,
     * the index would take the reports of the service's next life, counting from revision 1, for late ones.
     */
    private Call<Boolean> purge0(String serviceId) {
        return calls.start(() -> "purge service '" + serviceId + "'", () -> {
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

    private Call<ServiceInstance> setMetadata0(String serviceId, String instanceId, Map<String, String> metadata) {
        return calls.start(() -> operation("set metadata of", serviceId, instanceId), () -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .metadata("metadata", metadata).throwIfInvalid();
            return update(serviceId, instanceId, "replace", Json.object(metadata), "[]");
        });
    }

    private Call<ServiceInstance> updateMetadata0(String serviceId, String instanceId, Map<String, String> put,
                                                  Set<String> remove) {
        return calls.start(() -> operation("update metadata of", serviceId, instanceId), () -> {
            Validation.Collector checks = Validation.collector().serviceId("serviceId", serviceId)
                    .instanceId("instanceId", instanceId).metadata("put", put).notNull("remove", remove);
            if (remove != null) {
                remove.forEach(key -> checks.check(key != null, "remove", remove, "a set of non-null keys"));
            }
            checks.throwIfInvalid();
            return update(serviceId, instanceId, "merge", Json.object(put), Json.array(remove));
        });
    }

    private Call<ServiceInstance> setStatus0(String serviceId, String instanceId, InstanceStatus status) {
        return calls.start(() -> operation("set status of", serviceId, instanceId), () -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .writableStatus("status", status).throwIfInvalid();
            return update(serviceId, instanceId, "status", status.name(), "[]");
        });
    }

    private Call<ServiceInstance> setWeight0(String serviceId, String instanceId, int weight) {
        return calls.start(() -> operation("set weight of", serviceId, instanceId), () -> {
            Validation.collector().serviceId("serviceId", serviceId).instanceId("instanceId", instanceId)
                    .weight("weight", weight).throwIfInvalid();
            return update(serviceId, instanceId, "weight", Integer.toString(weight), "[]");
        });
    }

    private CompletionStage<ServiceInstance> update(String serviceId, String instanceId, String mode, String value,
                                                    String removeKeys) {
        return Scripts.UPDATE_INSTANCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                keys.service(serviceId).all(), instanceId, mode, value, removeKeys, writeToken())
                .thenCompose(reply -> {
                    long revision = Reply.number(reply, 0, Scripts.UPDATE_INSTANCE);
                    String stored = Reply.textOrNull(reply, 1, Scripts.UPDATE_INSTANCE);
                    if (stored == null) {
                        throw notFound(serviceId, instanceId);
                    }
                    ServiceInstance updated = Json.instance(serviceId, instanceId, stored, region);
                    Lease lease = leases.get(serviceId, instanceId);
                    if (lease != null) {
                        lease.instance = updated;
                    }
                    return Calls.settle(null, view, serviceId, revision, updated);
                });
    }

    /** 128 random bits, hex: a write's token (see {@link #writeTokens}). */
    private String writeToken() {
        byte[] token = new byte[16];
        writeTokens.nextBytes(token);
        return HexFormat.of().formatHex(token);
    }

    /** Reports a service's instance count to the namespace index (see index_service.lua). */
    CompletionStage<Long> index(String serviceId, long revision, long count) {
        return Scripts.INDEX_SERVICE.run(backend.commands(), ScriptOutputType.INTEGER, keys.services().all(),
                serviceId, Long.toString(revision), Long.toString(count));
    }

    /** Services this client keeps registrations of (the sweeper sweeps them even if the index missed them). */
    Set<String> leasedServices() {
        return leases.services();
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
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Registrations still under way on close ({}); they expire after their TTL", e.toString());
        }
    }

    /** Deregisters everything this client still holds a lease for; bounded by the command timeout, never throws. */
    int deregisterAll() {
        return forEveryLease("deregister", instance -> deregister0("deregister", instance.serviceId(),
                instance.instanceId()), "they expire after their TTL");
    }

    /** Takes everything this client holds a lease for out of service; bounded, never throws. */
    int drain() {
        return forEveryLease("take out of service", instance -> setStatus0(instance.serviceId(),
                instance.instanceId(), InstanceStatus.OUT_OF_SERVICE), "they stay in service");
    }

    /** Runs one write per leased instance at once; returns how many succeeded within the command timeout. */
    private int forEveryLease(String action, Function<ServiceInstance, Call<?>> write, String otherwise) {
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (ServiceInstance instance : leases.instances()) {
            pending.add(write.apply(instance).stage().toCompletableFuture());
        }
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(backend.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Could not {} every instance of this client ({}); {}", action,
                    Errors.unwrap(e).toString(), otherwise);
        }
        return (int) pending.stream().filter(done -> done.isDone() && !done.isCompletedExceptionally()).count();
    }

    /** The state of this client's leases, for {@code LodestarClient.health()}. */
    ClientHealth.Registrations health() {
        return leases.health();
    }

    void stopRenewing() {
        leases.stopAll();
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

    private record Written(ServiceInstance instance, long revision) {
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

    /**
     * Completes {@code registered} with the outcome of {@code call}, attempt {@code attempt} (0 for the first) of
     * {@code registerWhenAvailable}, or with the outcome of a later attempt if Redis was unavailable.
     */
    private void retryUntilAvailable(ServiceInstance instance, Call<Registration> call, int attempt,
                                     CompletableFuture<Registration> registered) {
        call.stage().whenComplete((registration, failure) -> {
            if (failure == null) {
                registered.complete(registration);
                return;
            }
            LodestarException error = Errors.translate(failure, call.description(), backend.where(),
                    backend.timeout());
            if (!(error instanceof UnavailableException) || closing) {
                registered.completeExceptionally(error);
                return;
            }
            log.info("Cannot register {} yet ({}); retrying in about {} ms", describe(instance), error.getMessage(),
                    REGISTER_RETRY.boundMillis(attempt));
            try {
                clock.schedule(() -> retryUntilAvailable(instance, register0(instance), attempt + 1, registered),
                        REGISTER_RETRY.delayMillis(attempt, random), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                registered.completeExceptionally(backend.closedException());
            }
        });
    }

    /** The async API: the same operations, completing with Lodestar exceptions only (never a Lettuce one). */
    private final class Async implements AsyncServiceRegistry {
        @Override
        public CompletionStage<Registration> register(ServiceInstance instance) {
            return register0(instance).published();
        }

        @Override
        public CompletionStage<Registration> registerWhenAvailable(ServiceInstance instance) {
            CompletableFuture<Registration> registered = new CompletableFuture<>();
            Call<Registration> first = register0(instance);
            retryUntilAvailable(instance, first, 0, registered);
            return calls.start(first::description, () -> registered).published();
        }

        @Override
        public CompletionStage<Void> renew(String serviceId, String instanceId) {
            return renew0(serviceId, instanceId).published();
        }

        @Override
        public CompletionStage<Boolean> deregister(String serviceId, String instanceId) {
            return deregister0("deregister", serviceId, instanceId).published();
        }

        @Override
        public CompletionStage<Boolean> evict(String serviceId, String instanceId) {
            return deregister0("evict", serviceId, instanceId).published();
        }

        @Override
        public CompletionStage<ServiceInstance> setMetadata(String serviceId, String instanceId,
                                                            Map<String, String> metadata) {
            return setMetadata0(serviceId, instanceId, metadata).published();
        }

        @Override
        public CompletionStage<ServiceInstance> updateMetadata(String serviceId, String instanceId,
                                                               Map<String, String> put, Set<String> remove) {
            return updateMetadata0(serviceId, instanceId, put, remove).published();
        }

        @Override
        public CompletionStage<ServiceInstance> setStatus(String serviceId, String instanceId,
                                                          InstanceStatus status) {
            return setStatus0(serviceId, instanceId, status).published();
        }

        @Override
        public CompletionStage<ServiceInstance> setWeight(String serviceId, String instanceId, int weight) {
            return setWeight0(serviceId, instanceId, weight).published();
        }

        @Override
        public CompletionStage<Map<String, Duration>> timeToLive(String serviceId) {
            return timeToLive0(serviceId).published();
        }
    }
}
