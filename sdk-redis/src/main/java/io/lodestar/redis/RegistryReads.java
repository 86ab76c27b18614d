package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/** Reads of the registry straight from Redis: shared by the direct reader and the views' loads. */
final class RegistryReads {
    private static final Logger log = LoggerFactory.getLogger(RegistryReads.class);
    /**
     * Most instances one read script returns: a service of more is read in pages of about this many, and a batch of
     * services is cut before it would pass it, so no read holds Redis for long (about 10 ms at 2,000 instances of
     * ~200 bytes on a laptop-class core; issue 17 measured 557 ms for one read of 100,000).
     */
    static final int PAGE = 2_000;
    /** Most times a paged read starts over (the service's keys changed between its pages) before it fails. */
    static final int PAGED_ATTEMPTS = 3;
    /** Most services one batched read asks for (its keys travel with every call of the batch). */
    static final int MAX_BATCH_SERVICES = 256;
    private static final String PAGE_ARGUMENT = Integer.toString(PAGE);
    /** read_services.lua's count of a service whose known state is still Redis' own: not read again. */
    private static final long UNCHANGED = -2;
    private static final Comparator<ServiceInstance> BY_ID = Comparator.comparing(ServiceInstance::instanceId);
    private static final Object ANY_GROUP = "any";

    /** Read scripts run, by script (tests: batching and paging happened). */
    final LongAdder batchReads = new LongAdder();
    final LongAdder pageReads = new LongAdder();
    /** Services a batched read found unchanged and did not read again (tests: a resync read only what changed). */
    final LongAdder unchangedReads = new LongAdder();
    private final RedisBackend backend;
    private final Keys keys;
    /** Stamped on every instance read (null when the client names no region). */
    private final String region;

    RegistryReads(RedisBackend backend, Keys keys, String region) {
        this.backend = backend;
        this.keys = keys;
        this.region = region;
    }

    /** The region stamped on what this reads, or null. */
    String region() {
        return region;
    }

    /**
     * One service. {@code liveOnly} leaves out instances past their deadline that the sweep has not removed yet (what
     * a direct read shows); views keep them until the sweep's event (see read_service_page.lua).
     *
     * <p>A service of at most {@link #PAGE} instances is read atomically, in one call. A larger one is read page by
     * page (read_service_page.lua), each page with the revision and incarnation at its time. Without events to make
     * one state of pages read at different revisions, a direct read is only as good as its pages agree: when the
     * revision or incarnation of the last page is the first's, nothing changed in between (every change of the
     * instances bumps the revision) and the union of the pages is the state at that revision (HSCAN returns every
     * instance present throughout at least once). Otherwise it reads again, at most {@link #PAGED_ATTEMPTS} times,
     * and then fails with an {@link UnavailableException} saying so, rather than return a state Redis never held
     * (a service that large and that busy is read from a view, which pages with its events: see
     * {@link #serviceForView}).
     */
    CompletionStage<ServiceSnapshot> service(String serviceId, boolean liveOnly) {
        if (!liveOnly) {
            return serviceForView(serviceId).thenApply(SyncedView.Versioned::value);
        }
        // The common case in as few steps as it takes: one call, its reply decoded straight into the snapshot.
        String[] serviceKeys = keys.service(serviceId).forRead();
        return readPage(serviceKeys, "0", true).thenCompose(reply -> { // readPage fails the caller's call if closed
            Page first = Page.of(reply, serviceKeys);
            if (first.last()) {
                return CompletableFuture.completedFuture(new ServiceSnapshot(serviceId, first.revision(),
                        instances(serviceId, first)));
            }
            return pagesUntil(serviceId, true, Paged::consistent, attempts -> "Service '" + serviceId
                    + "' changed during each of " + attempts + " paged reads (a service of more than " + PAGE
                    + " instances is read a page at a time); read it from a view (discovery()), which follows"
                    + " its changes, or retry", 1, first).thenApply(read -> read.value().value());
        });
    }

    /**
     * The service for a view, with its digest (see common.lua; null when no write made one yet): atomically when
     * it has at most {@link #PAGE} instances, else page by page.
     *
     * <p>Why pages read at different revisions make a right view: the view subscribed to the service's events
     * before the first page, buffers what it hears during the load and applies, after the load, every event past
     * the loaded revision in order. The loaded value is the union of the pages stamped with the FIRST page's
     * revision, digest and incarnation (R1). Take any instance: if an event after R1 touched it, the last such event
     * decides what the view holds (events carry the whole instance: registered/updated put it, deregistered/expired
     * remove it), whatever a page said; if none did, it did not change from R1 to the last page, so it is in the
     * union exactly when it was in Redis (HSCAN returns an element present throughout the scan at least once, and
     * never one that was absent throughout). So once the view applied the events up to the last page's revision it
     * holds exactly that state. Keys lost and written again between pages (another incarnation) count revisions
     * anew, which breaks the argument: the load starts over ({@link #PAGED_ATTEMPTS} times at most, then fails and
     * the view retries later). A listener told of a resync meanwhile may see the union (labelled R1) before the
     * events that make it exact; it gets those events too.
     */
    CompletionStage<SyncedView.Versioned<ServiceSnapshot>> serviceForView(String serviceId) {
        return pagesUntil(serviceId, false, read -> !read.otherIncarnation(), attempts -> "The keys of service '"
                + serviceId + "' were written anew during each of " + attempts + " paged reads", 1, null)
                .thenApply(Paged::value);
    }

    /**
     * Reads every page until a read is {@code usable}, at most {@link #PAGED_ATTEMPTS} times, then fails with why.
     * {@code firstPage}: the first page of the first attempt, when already read (else null).
     */
    private CompletionStage<Paged> pagesUntil(String serviceId, boolean liveOnly, Predicate<Paged> usable,
                                              IntFunction<String> why, int attempt, Page firstPage) {
        return pages(serviceId, liveOnly, firstPage).thenCompose(read -> {
            if (usable.test(read)) {
                return CompletableFuture.completedFuture(read);
            }
            if (attempt >= PAGED_ATTEMPTS) {
                throw new UnavailableException(why.apply(attempt));
            }
            return pagesUntil(serviceId, liveOnly, usable, why, attempt + 1, null);
        });
    }

    /** A paged read: the first page's stamp with the union of the pages, and how the last page's stamp compares. */
    private record Paged(SyncedView.Versioned<ServiceSnapshot> value, boolean consistent, boolean otherIncarnation) {
    }

    /**
     * One reply of read_service_page.lua: the stamp, the next cursor, the page's instances as Redis returned them
     * (id, JSON, ...) and the ids past their deadline to leave out (a direct read's; empty for a view's).
     */
    private record Page(long revision, String digest, String incarnation, String cursor, List<Object> flat,
                        List<Object> overdue) {
        /** {@code serviceKeys}: the keys the page was read with (the instances key names a corrupt revision). */
        @SuppressWarnings("unchecked")
        static Page of(List<Object> reply, String[] serviceKeys) {
            List<Object> stamp = (List<Object>) reply.get(0);
            return new Page(Replies.stampRevision(serviceKeys[0], stamp.get(0)), (String) stamp.get(1),
                    (String) stamp.get(2), (String) reply.get(1), (List<Object>) reply.get(2),
                    reply.size() > 3 ? (List<Object>) reply.get(3) : List.of());
        }

        boolean last() {
            return "0".equals(cursor);
        }

        /** Whether to leave out the instance: few overdue ids are searched, more are put in a set once. */
        Predicate<Object> leftOut() {
            if (overdue.isEmpty()) {
                return id -> false;
            }
            if (overdue.size() <= 8) {
                return overdue::contains;
            }
            return new HashSet<>(overdue)::contains;
        }
    }

    private CompletionStage<List<Object>> readPage(String[] serviceKeys, String cursor, boolean liveOnly) {
        pageReads.increment();
        return Scripts.READ_SERVICE_PAGE.run(backend.commands(), ScriptOutputType.MULTI, serviceKeys, cursor,
                PAGE_ARGUMENT, liveOnly ? "1" : "0");
    }

    /** Reads every page of a service, one call after the other, from {@code firstPage} when read already. */
    private CompletionStage<Paged> pages(String serviceId, boolean liveOnly, Page firstPage) {
        String[] serviceKeys = keys.service(serviceId).forRead();
        Map<String, String> union = new HashMap<>();
        CompletableFuture<Paged> done = new CompletableFuture<>();
        if (firstPage == null) {
            page(serviceId, serviceKeys, liveOnly, "0", null, union, done);
        } else {
            add(firstPage, union);
            page(serviceId, serviceKeys, liveOnly, firstPage.cursor(), firstPage, union, done);
        }
        return done;
    }

    private void page(String serviceId, String[] serviceKeys, boolean liveOnly, String cursor, Page first,
                      Map<String, String> union, CompletableFuture<Paged> done) {
        CompletionStage<List<Object>> call;
        try {
            call = readPage(serviceKeys, cursor, liveOnly);
        } catch (RuntimeException closed) {
            if (first == null) {
                throw closed; // the first call fails the caller's call itself, as every other read does
            }
            call = CompletableFuture.failedFuture(closed);
        }
        call.whenComplete((reply, failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure);
                return;
            }
            try {
                Page read = Page.of(reply, serviceKeys);
                if (first == null && read.last()) { // the whole service in one call: no union to make
                    done.complete(new Paged(versioned(serviceId, read, instances(serviceId, read)), true, false));
                    return;
                }
                Page stamp = first == null ? read : first;
                if (first != null && !Objects.equals(first.incarnation(), read.incarnation())) {
                    done.complete(new Paged(null, false, true));
                    return;
                }
                add(read, union);
                if (!read.last()) {
                    page(serviceId, serviceKeys, liveOnly, read.cursor(), stamp, union, done);
                    return;
                }
                boolean consistent = stamp.revision() == read.revision();
                done.complete(new Paged(versioned(serviceId, stamp, instances(serviceId, union)), consistent,
                        false));
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
    }

    /** Adds a page's instances to the union of the pages, less those it says are overdue. */
    private static void add(Page page, Map<String, String> union) {
        Predicate<Object> leftOut = page.leftOut();
        List<Object> flat = page.flat();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            Object id = flat.get(i);
            if (!leftOut.test(id) && !Keys.isStampField(id)) {
                union.put((String) id, (String) flat.get(i + 1));
            }
        }
    }

    /** The instances of one page read whole, less those it says are overdue, sorted by id. */
    private List<ServiceInstance> instances(String serviceId, Page page) {
        return instances(serviceId, page.flat(), page.leftOut());
    }

    /**
     * The instances of a reply's {@code id1, json1, id2, json2, ...} (an instances hash as Redis returned it), less
     * those left out and the service's stamp, sorted by id.
     */
    private List<ServiceInstance> instances(String serviceId, List<Object> flat, Predicate<Object> leftOut) {
        ServiceInstance[] read = new ServiceInstance[flat.size() / 2];
        int count = 0;
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            Object id = flat.get(i);
            if (!leftOut.test(id) && !Keys.isStampField(id)) {
                ServiceInstance instance = instance(serviceId, (String) id, (String) flat.get(i + 1));
                if (instance != null) {
                    read[count++] = instance;
                }
            }
        }
        return sorted(read, count);
    }

    /** The instances of a union of pages, sorted by id. */
    private List<ServiceInstance> instances(String serviceId, Map<String, String> byId) {
        ServiceInstance[] read = new ServiceInstance[byId.size()];
        int count = 0;
        for (Map.Entry<String, String> stored : byId.entrySet()) {
            ServiceInstance instance = instance(serviceId, stored.getKey(), stored.getValue());
            if (instance != null) {
                read[count++] = instance;
            }
        }
        return sorted(read, count);
    }

    /** The first {@code count} instances, sorted by id, as an immutable list (which the snapshot keeps as it is). */
    private static List<ServiceInstance> sorted(ServiceInstance[] read, int count) {
        Arrays.sort(read, 0, count, BY_ID);
        return List.of(count == read.length ? read : Arrays.copyOf(read, count));
    }

    /** One stored instance, or null (logged) when it is unreadable. */
    private ServiceInstance instance(String serviceId, String instanceId, String json) {
        try {
            return Json.instance(serviceId, instanceId, json, region);
        } catch (RuntimeException unreadable) {
            // one bad entry (written by another program) must not make the whole service unreadable
            log.warn("Skipping unreadable instance {}/{}: {}", serviceId, instanceId, unreadable.getMessage());
            return null;
        }
    }

    /** The service at a page's stamp. */
    private static SyncedView.Versioned<ServiceSnapshot> versioned(String serviceId, Page stamp,
                                                                   List<ServiceInstance> instances) {
        return versioned(serviceId, stamp.revision(), stamp.digest(), stamp.incarnation(), instances);
    }

    /** The service at a revision; an empty digest or incarnation (none kept yet) is null. */
    private static SyncedView.Versioned<ServiceSnapshot> versioned(String serviceId, long revision, String digest,
                                                                   String incarnation,
                                                                   List<ServiceInstance> instances) {
        return new SyncedView.Versioned<>(revision, new ServiceSnapshot(serviceId, revision, instances),
                emptyAsNull(digest), emptyAsNull(incarnation));
    }

    private static String emptyAsNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    /**
     * Services for a view's batched load (preload, resync), all of one bucket on a cluster (their keys share a
     * slot), as {@link #serviceForView} reads each: one future per service, in order. Read by read_services.lua
     * in as few calls as the bound of {@link #PAGE} instances per call allows, one call after the other; a service
     * of more than a page is read page by page on its own. A service whose {@code known} value (null: none) is still
     * what Redis holds is not read: its future completes with that value (see {@link ViewSource#loadAll}).
     */
    List<CompletableFuture<SyncedView.Versioned<ServiceSnapshot>>> servicesForView(List<String> serviceIds,
            List<SyncedView.Versioned<ServiceSnapshot>> known) {
        List<CompletableFuture<SyncedView.Versioned<ServiceSnapshot>>> results = new ArrayList<>(serviceIds.size());
        for (int i = 0; i < serviceIds.size(); i++) {
            results.add(new CompletableFuture<>());
        }
        if (!serviceIds.isEmpty()) {
            readBatch(serviceIds, known, results, 0);
        }
        return results;
    }

    private void readBatch(List<String> serviceIds, List<SyncedView.Versioned<ServiceSnapshot>> known,
                           List<CompletableFuture<SyncedView.Versioned<ServiceSnapshot>>> results, int from) {
        int to = Math.min(serviceIds.size(), from + MAX_BATCH_SERVICES);
        String[] batchKeys = new String[to - from];
        String[] args = new String[2 + to - from];
        args[0] = Integer.toString(PAGE);
        args[1] = args[0];
        for (int i = from; i < to; i++) {
            batchKeys[i - from] = keys.service(serviceIds.get(i)).instances();
            args[2 + i - from] = stamp(known.get(i));
        }
        batchReads.increment();
        CompletionStage<List<Object>> call;
        try {
            call = Scripts.READ_SERVICES.run(backend.commands(), ScriptOutputType.MULTI, batchKeys, args);
        } catch (RuntimeException closed) {
            call = CompletableFuture.failedFuture(closed);
        }
        call.whenComplete((reply, failure) -> {
            if (failure != null) {
                for (int i = from; i < serviceIds.size(); i++) {
                    results.get(i).completeExceptionally(failure);
                }
                return;
            }
            int read = reply.size();
            // the next call first: Redis reads the rest of the batch while this reply is parsed
            if (read == 0 && from < serviceIds.size()) { // cannot happen with a well-formed reply: never loop
                IllegalStateException empty = new IllegalStateException("read_services read no service");
                for (int i = from; i < serviceIds.size(); i++) {
                    results.get(i).completeExceptionally(empty);
                }
            } else if (from + read < serviceIds.size()) {
                readBatch(serviceIds, known, results, from + read);
            }
            // Every service of the reply is decoded first, then all are completed in a row: whoever waits for them
            // (a view's batch) is woken once for the reply, not once per service between decodes.
            Object[] decoded = new Object[read];
            for (int at = 0; at < read; at++) {
                String serviceId = serviceIds.get(from + at);
                try {
                    @SuppressWarnings("unchecked")
                    List<Object> entry = (List<Object>) reply.get(at);
                    long count = (Long) entry.get(3);
                    if (count == UNCHANGED) {
                        unchangedReads.increment();
                        decoded[at] = Objects.requireNonNull(known.get(from + at), "unchanged, but nothing known");
                        continue;
                    }
                    if (count < 0) { // too large for a batch: page by page (subscribed already)
                        CompletableFuture<SyncedView.Versioned<ServiceSnapshot>> result = results.get(from + at);
                        serviceForView(serviceId).whenComplete((value, failed) -> {
                            if (failed == null) {
                                result.complete(value);
                            } else {
                                result.completeExceptionally(failed);
                            }
                        });
                        continue;
                    }
                    decoded[at] = versioned(serviceId, Replies.stampRevision(batchKeys[at], entry.get(0)),
                            (String) entry.get(1),
                            (String) entry.get(2), instances(serviceId, entry.subList(4, entry.size()), id -> false));
                } catch (RuntimeException e) {
                    decoded[at] = e;
                }
            }
            for (int at = 0; at < read; at++) {
                CompletableFuture<SyncedView.Versioned<ServiceSnapshot>> result = results.get(from + at);
                if (decoded[at] instanceof RuntimeException e) {
                    result.completeExceptionally(e);
                } else if (decoded[at] != null) {
                    @SuppressWarnings("unchecked")
                    SyncedView.Versioned<ServiceSnapshot> value = (SyncedView.Versioned<ServiceSnapshot>) decoded[at];
                    result.complete(value);
                }
            }
        });
    }

    /**
     * A value's state as read_services.lua compares it ({@code revision:digest:incarnation}), or '' when there is
     * none to compare: without a digest and an incarnation an equal revision does not prove the same state.
     */
    private static String stamp(SyncedView.Versioned<ServiceSnapshot> known) {
        if (known == null || known.digest() == null || known.incarnation() == null) {
            return "";
        }
        return known.revision() + ":" + known.digest() + ":" + known.incarnation();
    }

    /** Which services a view loads together: on a cluster those of one bucket (their keys share a slot), else all. */
    Object batchGroup(String serviceId) {
        return backend.isCluster() ? Integer.valueOf(Keys.bucket(serviceId)) : ANY_GROUP;
    }

    /** Revision, digest and incarnation of a service, read together (the reconcile compares them). */
    CompletionStage<SyncedView.Versioned<Void>> serviceStamp(String serviceId) {
        String instances = keys.service(serviceId).instances();
        return backend.commands().hmget(instances, Keys.REVISION_FIELD, Keys.DIGEST_FIELD, Keys.INCARNATION_FIELD)
                .thenApply(values -> new SyncedView.Versioned<>(
                        Replies.stampRevision(instances, values.get(0).getValueOrElse(null)), null,
                        values.get(1).getValueOrElse(null), values.get(2).getValueOrElse(null)));
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
                    return new SyncedView.Versioned<>(Replies.counter(index.revision(), reply.get(0)),
                            Collections.unmodifiableSet(services),
                            null, incarnation.isEmpty() ? null : incarnation);
                });
    }

    CompletionStage<Long> servicesRevision() {
        return backend.counter(keys.services().revision());
    }
}
