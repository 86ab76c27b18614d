package io.lodestar.redis;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LeaseListener;
import io.lodestar.core.Subscription;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.internal.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;

/**
 * The leases of the ephemeral instances one client registered, and when each is renewed; it stands beside
 * {@link RedisServiceRegistry} as Consul's {@code TtlScheduler} stands beside its registry: the registry writes,
 * this class decides when. A lease is renewed every third of its TTL (±10 % jitter, so a fleet does not renew in
 * lock step), at once when the connection to Redis is back ({@link #renewAllSoon}), and again after a second (or a
 * third of its TTL, if shorter) when a renewal fails. A renewal that runs more than a third of a TTL late is counted
 * and logged: the process was paused or its scheduler starved.
 *
 * <p>A lease is created before its register script runs and removed before a deregister script runs, and a lease
 * acts only while it is still the one held for its instance (each lease object is its own generation): so a
 * deregister or close racing a register or a renewal always wins, and nothing the client removed comes back
 * through it.
 *
 * <p>A failing Redis fails every lease's renewals, each once a second: one WARN says when renewals start failing,
 * one INFO when they succeed again, and each failed attempt is at DEBUG, so an outage does not flood the log.
 *
 * <p>Time and scheduling come only from the {@link Clock} (in production a {@link WheelClock}, which keeps the
 * pending renewals off the scheduler's heap), the jitter from the random generator: tests advance a manual clock.
 */
final class Leases {
    private static final Logger log = LoggerFactory.getLogger(Leases.class);
    /** The longest wait before a failed renewal is tried again. */
    private static final long RETRY_MILLIS = 1_000;

    /** What one renewal found. */
    enum Outcome {
        /** The instance is registered and renewed (registered again, if it had expired). */
        RENEWED,
        /** Another client or an operator deregistered or evicted it: it is not renewed any more. */
        REMOVED,
        /** Another client (or process) registered the same id: that registration is its own to renew. */
        TAKEN_OVER,
        /** This client deregistered or registered it anew meanwhile: the lease is no longer the current one. */
        REPLACED
    }

    /** The registry's side of a renewal. */
    interface Renewal {

        /** Renews the lease's instance in Redis; fails when Redis could not be asked. */
        CompletionStage<Outcome> renew(Lease lease);

        /** A timed renewal started at {@code startedNanos} (the clock's) failed, and not because the client closed. */
        void failed(Throwable failure, long startedNanos);
    }

    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final Clock clock;
    private final RandomGenerator random;
    private final Renewal renewal;
    private final BooleanSupplier closing;
    /** Tells the lease listeners (never Redis' I/O thread). */
    private final Executor callbacks;
    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();
    private final Failures failures = new Failures();
    private volatile Instant lastRenewalAt;
    private final LongAdder lateRenewals = new LongAdder();
    private final LongAdder failedRenewals = new LongAdder();
    private final LongAdder takenOver = new LongAdder();

    /**
     * @param closing   true once the client is closing: a lease a deregister cut short then gets no new one, and a
     *                  renewal cut off by the close is no failure
     * @param callbacks runs the lease listeners
     */
    Leases(Clock clock, RandomGenerator random, Renewal renewal, BooleanSupplier closing, Executor callbacks) {
        this.clock = clock;
        this.random = random;
        this.renewal = renewal;
        this.closing = closing;
        this.callbacks = callbacks;
    }

    /** A new lease of {@code instance}, replacing (and cancelling) the one held for it; it renews after start. */
    Lease open(ServiceInstance instance) {
        String key = key(instance.serviceId(), instance.instanceId());
        Lease lease = new Lease(key, instance);
        Lease replaced = leases.put(key, lease);
        if (replaced != null) {
            replaced.cancel();
            lease.replacedAnother = true;
        }
        return lease;
    }

    /** The lease held for the instance, or null. */
    Lease get(String serviceId, String instanceId) {
        return leases.get(key(serviceId, instanceId));
    }

    /** Forgets and cancels the lease held for the instance, if any, for a deregister whose outcome is {@code removal}. */
    void cancel(String serviceId, String instanceId, CompletionStage<Boolean> removal) {
        Lease lease = leases.remove(key(serviceId, instanceId));
        if (lease != null) {
            lease.cancel(removal);
        }
    }

    /** Cancels a lease and forgets it unless another lease replaced it; true when it was the current one. */
    boolean drop(Lease lease) {
        lease.cancel();
        return leases.remove(lease.key, lease);
    }

    /**
     * A deregister on this client that cancelled the lease while its register was under way may have run in Redis
     * before the register (it then removed nothing, and the registration stands) or after it (it removed the
     * instance). In the first case the registration needs its lease: a fresh one, unless another registration of
     * the instance on this client holds one by now, or the client is closing.
     */
    void keepIfRegisteredLast(Lease lease, ServiceInstance registered) {
        CompletionStage<Boolean> removal = lease.removal();
        if (removal == null) {
            return;
        }
        removal.thenAccept(removed -> {
            if (removed || closing.getAsBoolean()) {
                return;
            }
            Lease kept = new Lease(lease.key, registered);
            if (leases.putIfAbsent(lease.key, kept) == null) {
                kept.start(registered);
            }
        });
    }

    /**
     * One renewal of a lease: completes with true while the lease lives on, false once it is dropped because the
     * instance was removed on purpose, taken over, or the lease replaced.
     */
    CompletionStage<Boolean> renew(Lease lease) {
        CompletionStage<Outcome> renewed;
        try {
            renewed = renewal.renew(lease);
        } catch (RuntimeException e) {
            renewed = CompletableFuture.failedFuture(e);
        }
        return renewed.thenApply(outcome -> switch (outcome) {
            case RENEWED -> true;
            case REMOVED -> dropRemoved(lease);
            case TAKEN_OVER -> dropTakenOver(lease);
            case REPLACED -> false;
        });
    }

    /** Renews every lease now, not a third of a TTL later (the connection is back; they may have run late). */
    void renewAllSoon() {
        leases.values().forEach(Lease::renewSoon);
    }

    /** The services of the instances leased. */
    Set<String> services() {
        Set<String> services = new TreeSet<>();
        leases.values().forEach(lease -> services.add(lease.instance.serviceId()));
        return services;
    }

    /** The instances leased, as last registered or updated. */
    List<ServiceInstance> instances() {
        return leases.values().stream().map(lease -> lease.instance).toList();
    }

    /** The state of the leases, for {@code LodestarClient.health()}. */
    ClientHealth.Registrations health() {
        return new ClientHealth.Registrations(leases.size(), lastRenewalAt, lateRenewals.sum(),
                failedRenewals.sum(), takenOver.sum());
    }

    /** Cancels and forgets every lease (the client closes). */
    void stopAll() {
        leases.values().forEach(Lease::cancel);
        leases.clear();
    }

    Subscription addListener(LeaseListener listener) {
        Validation.requireNonNull("listener", listener);
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Stops a lease whose instance another client or an operator removed; false, for {@link #renew}. */
    private boolean dropRemoved(Lease lease) {
        if (drop(lease)) {
            log.info("Instance {}/{} was deregistered or evicted by another client; no longer renewing it",
                    lease.instance.serviceId(), lease.instance.instanceId());
            tell(lease.instance, LeaseListener.Cause.REMOVED);
        }
        return false;
    }

    /** Stops a lease whose instance another registration replaced; false, for {@link #renew}. */
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
        for (LeaseListener listener : listeners) {
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

    private static String key(String serviceId, String instanceId) {
        return serviceId + '\u0000' + instanceId;
    }

    /** Keeps one ephemeral instance alive; renews only after {@link #start} and while it is the current lease. */
    final class Lease {
        final String key;
        volatile ServiceInstance instance;
        /** Whether this lease replaced another of the same instance (this client renewed it before). */
        private volatile boolean replacedAnother;
        /** Guarded by this: the one renewal due, and its handle on the clock. */
        private Runnable pending;
        private Clock.Scheduled scheduled;
        private boolean started;
        private volatile boolean cancelled;
        /** When the pending renewal is due (the clock's nanoTime), to tell a starved or paused process. */
        private volatile long dueNanos;
        /** Guarded by this: the outcome of the deregister that cancelled this lease (true: it removed the instance). */
        private CompletionStage<Boolean> removal;

        private Lease(String key, ServiceInstance instance) {
            this.key = key;
            this.instance = instance;
        }

        boolean replacedAnother() {
            return replacedAnother;
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
            schedule(third - jitter + random.nextLong(2 * jitter + 1));
        }

        /** Replaces the pending renewal, so renewals that overlap (e.g. one forced by a reconnect) stay one chain. */
        private synchronized void schedule(long delayMillis) {
            if (cancelled || !started) {
                return;
            }
            unschedule();
            dueNanos = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
            Runnable due = new Runnable() {
                @Override
                public void run() {
                    if (claim(this)) {
                        renewNow();
                    }
                }
            };
            try {
                pending = due;
                scheduled = clock.schedule(due, delayMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopped) {
                // the scheduler or the Lettuce resources were shut down: the client is closing, nothing renews
                pending = null;
                log.debug("Renewal of {}/{} not scheduled: the client is closing ({})", instance.serviceId(),
                        instance.instanceId(), stopped.toString());
            }
        }

        /** True, once, for the renewal still pending; false for one replaced by a later schedule or a cancel. */
        private synchronized boolean claim(Runnable due) {
            if (cancelled || pending != due) {
                return false;
            }
            pending = null;
            scheduled = null;
            return true;
        }

        private void renewNow() {
            if (!current()) {
                return;
            }
            long ttlMillis = instance.ttl().toMillis();
            long lateMillis = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - dueNanos);
            if (lateMillis > ttlMillis / 3) {
                lateRenewals.increment();
                log.warn("Renewal of {}/{} runs {} ms late (TTL {} ms): the process was paused (GC, suspended VM)"
                        + " or its scheduler starved; the instance may have expired meanwhile", instance.serviceId(),
                        instance.instanceId(), lateMillis, ttlMillis);
            }
            long startedNanos = clock.nanoTime();
            renew(this).whenComplete((alive, failure) -> {
                if (failure != null && (closing.getAsBoolean() || cancelled)) {
                    // cut off by this client's own close: not a failure to report, nothing left to retry
                    log.debug("Renewal of {}/{} ended by the client's close", instance.serviceId(),
                            instance.instanceId());
                } else if (failure != null) {
                    failedRenewals.increment();
                    renewal.failed(failure, startedNanos);
                    long retryMillis = Math.min(RETRY_MILLIS, instance.ttl().toMillis() / 3);
                    failures.failed(this, failure, retryMillis);
                    schedule(retryMillis);
                } else if (alive) {
                    lastRenewalAt = clock.instant();
                    failures.succeeded(this);
                    scheduleRegular();
                }
            });
        }

        /** Cancels the lease for a deregister whose outcome is {@code removal}. */
        synchronized void cancel(CompletionStage<Boolean> removal) {
            this.removal = removal;
            cancel();
        }

        synchronized void cancel() {
            cancelled = true;
            unschedule();
            failures.forget(this);
        }

        synchronized CompletionStage<Boolean> removal() {
            return removal;
        }

        private void unschedule() {
            if (scheduled != null) {
                scheduled.cancel();
            }
            pending = null;
            scheduled = null;
        }
    }

    /**
     * The log of failing renewals: one WARN when the first lease fails, one INFO when the last failing one is
     * renewed again, every attempt in between at DEBUG.
     */
    private final class Failures {
        /** Guarded by this: the leases whose last renewal failed. */
        private final Set<Lease> failing = new HashSet<>();
        private long attempts;
        private int leasesFailed;
        private long beganNanos;

        void failed(Lease lease, Throwable failure, long retryMillis) {
            boolean began;
            synchronized (this) {
                began = failing.isEmpty();
                if (began) {
                    attempts = 0;
                    leasesFailed = 0;
                    beganNanos = clock.nanoTime();
                }
                attempts++;
                if (failing.add(lease)) {
                    leasesFailed++;
                }
            }
            String reason = Errors.unwrap(failure).getMessage();
            if (began) {
                log.warn("Renewing leases fails (first {}/{}, one of {} held); each is retried every {} ms or sooner,"
                        + " further failures at DEBUG until renewals succeed again: {}", lease.instance.serviceId(),
                        lease.instance.instanceId(), leases.size(), retryMillis, reason);
            } else {
                log.debug("Renewing {}/{} failed, retrying in {} ms: {}", lease.instance.serviceId(),
                        lease.instance.instanceId(), retryMillis, reason);
            }
        }

        void succeeded(Lease lease) {
            long failedAttempts;
            int failedLeases;
            long millis;
            synchronized (this) {
                if (!failing.remove(lease) || !failing.isEmpty()) {
                    return;
                }
                failedAttempts = attempts;
                failedLeases = leasesFailed;
                millis = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - beganNanos);
            }
            log.info("Renewing leases succeeds again after {} ms ({} failed attempts of {} leases)", millis,
                    failedAttempts, failedLeases);
        }

        /** A cancelled lease renews no more, failing or not. */
        synchronized void forget(Lease lease) {
            failing.remove(lease);
        }
    }
}
