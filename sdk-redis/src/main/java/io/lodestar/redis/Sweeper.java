package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.ClientClosedException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.internal.Validation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * Removes expired instances. There is no Lodestar server, so every client runs this; a short lock per namespace
 * and interval elects one of them. The elected client looks only at the services whose time has come in their
 * bucket's due set (see {@link Keys} and file_due in common.lua): one call per bucket and interval, plus one sweep
 * per service with an overdue deadline or a change of its instance count to report to the index, so a namespace of
 * quiet services costs Redis {@value Keys#BUCKETS} cheap calls per interval whatever its size. Once per
 * {@link #FULL_PASS} the elected client sweeps every service instead (those of the index, and those this client
 * registers or views, in case the index missed one): it repairs what the due sets could miss (a due set deleted by
 * hand, say). The sweep script is idempotent, so two sweepers never double-remove. Expiry is decided by Redis time
 * inside the script.
 *
 * <p>Outages expire no live instance, and only outages count: a client that could not reach Redis (a renewal that
 * failed as unreachable, a lost connection whose reconnect failed; see {@link OutageEvidence}) notes when that outage
 * began and ended in the namespace's outage list (in the same script that elects the sweeper, so a sweeper that was
 * cut off notes it before it sweeps). The sweep spares an instance whose lease was live when an outage began until
 * its owner had {@link #RECONNECT_ALLOWANCE} plus the instance's TTL after that outage's end to renew it; an instance
 * already overdue when an outage began is expired as usual, so outages that keep coming, or a client whose PubSub
 * connection keeps dropping, cannot postpone a crashed owner's expiry (see sweep_service.lua).
 */
final class Sweeper {
    private static final Logger log = LoggerFactory.getLogger(Sweeper.class);
    /** Overdue instances one sweep script looks at: bounds how long it holds Redis. */
    private static final int BATCH = 256;
    /**
     * How much later than the first client an owner may come back from the same outage (its reconnect backoff and
     * jitter) and still find its instance: the sweep spares overdue instances this long plus their TTL.
     */
    static final Duration RECONNECT_ALLOWANCE = Duration.ofSeconds(10);
    /** How long after its end an outage can still spare an instance: the allowance plus the longest TTL. */
    private static final Duration OUTAGE_HORIZON = RECONNECT_ALLOWANCE.plus(Validation.MAX_TTL);
    /** How often the elected client sweeps every service rather than only the due ones. */
    static final Duration FULL_PASS = Duration.ofMinutes(10);
    /** Due services one call reads from a bucket's due set. */
    private static final int DUE_PAGE = 1000;

    private final RedisBackend backend;
    private final Keys keys;
    private final RedisServiceRegistry registry;
    private final RegistryReads reads;
    private final Supplier<List<String>> viewedServices;
    private final Duration interval;
    private final String owner = UUID.randomUUID().toString();
    /** Sweeps (of the index, a service or the lock) that failed for another reason than Redis being unreachable. */
    final LongAdder failures = new LongAdder();
    /** Rounds this client won and swept. */
    final LongAdder rounds = new LongAdder();
    /** Services this client swept, once per round each: what its rounds cost beyond one call per bucket. */
    final LongAdder servicesSwept = new LongAdder();
    private volatile boolean readOnlyReported;

    Sweeper(RedisBackend backend, Keys keys, RedisServiceRegistry registry, RegistryReads reads,
            Supplier<List<String>> viewedServices, Duration interval) {
        this.backend = backend;
        this.keys = keys;
        this.registry = registry;
        this.reads = reads;
        this.viewedServices = viewedServices;
        this.interval = interval;
    }

    /** One sweep round, if this client wins the lock. Completes when done; failures are logged only. */
    CompletionStage<Void> sweepOnce() {
        // longer than the interval and its jitter (±10 %), so the holder keeps the lock from one round to the next
        long lockMillis = Math.max(1, interval.toMillis() * 5 / 4);
        OutageEvidence.Note outage = backend.outages().toNote();
        return Scripts.ELECT_SWEEPER.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                        new String[] {keys.sweeperLock(), keys.outage(), keys.fullSweep()}, owner,
                        Long.toString(lockMillis), outage == null ? "" : Long.toString(outage.agoMillis()),
                        Long.toString(FULL_PASS.toMillis()), Long.toString(OUTAGE_HORIZON.toMillis()))
                .thenCompose(reply -> {
                    if (outage != null) {
                        backend.outages().noted(outage);
                    }
                    if ((Long) reply.get(2) == 1L) {
                        failures.increment();
                        log.warn("The sweep lock {} had no expiry (written by another program?): it now expires in"
                                + " {} ms", keys.sweeperLock(), lockMillis);
                    }
                    for (Object key : (List<?>) reply.get(4)) {
                        replaced(key + " (written by another program?)", "this interval's sweep goes on");
                    }
                    if ((Long) reply.get(0) == 0L) {
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    rounds.increment();
                    String outages = (String) reply.get(1);
                    return (Long) reply.get(3) == 1L ? sweepAll(outages) : sweepDue(outages);
                })
                .exceptionally(failure -> failed("the sweep lock", failure));
    }

    /** Logs at WARN (DEBUG while Redis is unreachable: the connection's own state says so) and counts. */
    private Void failed(String what, Throwable failure) {
        LodestarException error = Errors.translate(failure, "sweep " + what, backend.where(), backend.timeout());
        if (error.getMessage().contains("was refused by Redis")) {
            // a read-only ACL user (see LeastPrivilege.READER_ACL_RULES): sweeping is left to the writers
            if (!readOnlyReported) {
                readOnlyReported = true;
                log.info("This client's Redis user may not write, so it does not sweep: {}", error.getMessage());
            }
        } else if (error instanceof UnavailableException || error instanceof ClientClosedException) {
            log.debug("Sweep of {} skipped: {}", what, error.getMessage());
        } else {
            failures.increment();
            log.warn("Sweep of {} failed; instances there do not expire until it is repaired: {}", what,
                    error.getMessage());
        }
        return null;
    }

    /**
     * A key of the sweep's own state held another type, and the script that found it replaced it (see
     * replace_corrupt in sweep_state.lua): logged at WARN and counted with the failures.
     */
    private void replaced(String what, String then) {
        failures.increment();
        log.warn("Replaced the sweep's own key: {}; {}", what, then);
    }

    /** A bucket's master key held another type (unless {@code type} is empty) and was replaced. */
    private void replacedMaster(String key, String type) {
        if (!type.isEmpty()) {
            replaced(key + " was a " + type + " (written by another program?)",
                    "a failover of the bucket's shard before this sweep may go unseen");
        }
    }

    /**
     * A bucket's due set held another type and was replaced: the bucket's services this client knows of are swept
     * now, each filing itself in the new due set, so the bucket's expiry misses at most this interval.
     */
    private CompletionStage<Void> rebuildDue(int bucket, String type, String outages) {
        replaced(keys.due(bucket) + " was a " + type + " (written by another program?)",
                "sweeping the bucket's services now, which files them again");
        return sweepKnown(outages, service -> Keys.bucket(service) == bucket);
    }

    private CompletionStage<Void> sweepDue(String outages) {
        CompletableFuture<?>[] buckets = IntStream.range(0, Keys.BUCKETS)
                .mapToObj(bucket -> sweepBucket(bucket, outages, 0)
                        .exceptionally(failure -> failed("bucket " + bucket, failure))
                        .toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(buckets);
    }

    /**
     * Sweeps the due services of one bucket, a page at a time; a page passes over the services earlier pages left
     * due (sparing overdue instances after an outage, or failing), so the round ends.
     */
    private CompletionStage<Void> sweepBucket(int bucket, String outages, long passOver) {
        return Scripts.DUE_SERVICES.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                new String[] {keys.due(bucket), keys.master(bucket)}, Long.toString(passOver),
                Integer.toString(DUE_PAGE))
                .thenCompose(reply -> {
                    replacedMaster(keys.master(bucket), (String) reply.get(1));
                    String replacedType = (String) reply.get(0);
                    if (!replacedType.isEmpty()) {
                        return rebuildDue(bucket, replacedType, outages);
                    }
                    List<?> members = (List<?>) reply.get(2);
                    List<CompletableFuture<Boolean>> visits = new ArrayList<>(members.size());
                    for (Object member : members) {
                        visits.add(visitDue(bucket, (String) member, outages).toCompletableFuture());
                    }
                    return CompletableFuture.allOf(visits.toArray(CompletableFuture[]::new)).thenCompose(done -> {
                        long stillDue = visits.stream().filter(CompletableFuture::join).count();
                        return members.size() == DUE_PAGE
                                ? sweepBucket(bucket, outages, passOver + stillDue)
                                : CompletableFuture.<Void>completedFuture(null);
                    });
                });
    }

    /** Sweeps one due service; true when it is still due after (it stays in the due set for the next round). */
    private CompletionStage<Boolean> visitDue(int bucket, String member, String outages) {
        String serviceId = keys.serviceOfDue(bucket, member);
        try {
            Validation.requireServiceId(serviceId);
        } catch (InvalidArgumentException notOurs) {
            failures.increment();
            log.warn("The due set {} holds {}, which is no service of this namespace (written by another"
                    + " program?): left there", keys.due(bucket), Validation.show(member));
            return CompletableFuture.completedFuture(true);
        }
        // The index may lack the service (its writer crashed before reporting): the visit reports the count.
        return sweep(serviceId, null, outages);
    }

    private CompletionStage<Void> sweepAll(String outages) {
        return sweepKnown(outages, service -> true);
    }

    /** Sweeps the services this client knows of (the index's, and those it registers or views) that it picks. */
    private CompletionStage<Void> sweepKnown(String outages, Predicate<String> picked) {
        // A corrupt index must not stop expiry of the services this client knows of by other means.
        return reads.services().exceptionally(failure -> {
            failed("the service index", failure);
            return new SyncedView.Versioned<>(0, Set.of());
        }).thenCompose(index -> {
            Set<String> services = new TreeSet<>(index.value());
            services.addAll(registry.leasedServices());
            services.addAll(viewedServices.get());
            CompletableFuture<?>[] sweeps = services.stream().filter(picked)
                    .map(service -> sweep(service, index.value().contains(service), outages).toCompletableFuture())
                    .toArray(CompletableFuture[]::new);
            return CompletableFuture.allOf(sweeps);
        });
    }

    /**
     * Sweeps one service and reports its instance count to the namespace index when it may be wrong there:
     * {@code indexed} says whether the index lists the service (null: unknown, always report). Completes with true
     * when the service is still due after (overdue instances spared, or the sweep failed: logged and counted).
     */
    private CompletionStage<Boolean> sweep(String serviceId, Boolean indexed, String outages) {
        servicesSwept.increment();
        return sweep(serviceId, indexed, outages, 0, 0).exceptionally(failure -> {
            failed("service '" + serviceId + "'", failure);
            return true; // left due: the next round tries again
        });
    }

    /**
     * One call of the sweep script; while a call finds a full batch overdue, calls again at once, passing over what
     * it spared, so expiry takes TTL plus one sweep interval at any size and no single script runs long.
     */
    private CompletionStage<Boolean> sweep(String serviceId, Boolean indexed, String outages, long passOver,
                                           long expiredBefore) {
        String[] serviceKeys = keys.service(serviceId).all();
        String[] sweepKeys = Arrays.copyOf(serviceKeys, serviceKeys.length + 1);
        sweepKeys[serviceKeys.length] = keys.master(Keys.bucket(serviceId));
        return Scripts.SWEEP_SERVICE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                sweepKeys, Integer.toString(BATCH), outages,
                Long.toString(RECONNECT_ALLOWANCE.toMillis()), Long.toString(passOver)).thenCompose(reply -> {
                    long revision = (Long) reply.get(0);
                    long count = (Long) reply.get(1);
                    long expired = (Long) reply.get(2);
                    long spared = (Long) reply.get(3);
                    String replacedType = (String) reply.get(4);
                    replacedMaster(sweepKeys[serviceKeys.length], (String) reply.get(5));
                    // found by a full pass, or corrupted since this round read the due set
                    CompletionStage<Void> repaired = replacedType.isEmpty() ? CompletableFuture.completedFuture(null)
                            : rebuildDue(Keys.bucket(serviceId), replacedType, outages);
                    return repaired.thenCompose(ignored -> {
                        if (expired > 0 || spared > 0) {
                            log.debug("Expired {} instance(s) of {}; spared {} whose owners may still be reconnecting"
                                    + " after an outage", expired, serviceId, spared);
                        }
                        if (expired + spared == BATCH) {
                            return sweep(serviceId, indexed, outages, passOver + spared, expiredBefore + expired);
                        }
                        boolean stillDue = passOver + spared > 0;
                        boolean indexStale = indexed == null || (indexed ? count == 0 : count > 0);
                        return expiredBefore + expired > 0 || indexStale
                                ? registry.index(serviceId, revision, count).thenApply(changed -> stillDue)
                                : CompletableFuture.completedFuture(stillDue);
                    });
                });
    }
}
