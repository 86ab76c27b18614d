package io.lodestar.redis;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Views load services in batches (preload, resync after a reconnect: one subscribe and a few bounded read scripts
 * per batch) and read a service larger than a page in pages; whatever was written meanwhile, each view ends holding
 * exactly what Redis holds. What "exactly" means here: per service, every instance id with the port of its last
 * write (a re-registration with another port is an update the view must carry). Views never reconcile here
 * ({@link Clients#RECONCILE_OFF}), so only the load, its events and the reconnect path can make them right.
 */
abstract class BatchedLoadContract extends NamespaceTest {
    private static final int SERVICES = 2_000;
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int IN_FLIGHT = 500;

    /** The URIs of every node (every master of a cluster), for CLIENT KILL. */
    abstract List<String> nodeUris();

    @Test
    void aPreloadOfThousandsOfServicesHoldsEachExactlyReadInBatchesAndFollowsEveryOne() {
        LodestarClient writer = writer();
        Map<String, Map<String, Integer>> expected = new ConcurrentHashMap<>();
        List<String> services = IntStream.range(0, SERVICES).mapToObj(i -> "svc-" + i).toList();
        join(services.stream().flatMap(service -> IntStream.range(0, 1 + Math.floorMod(service.hashCode(), 3))
                .mapToObj(i -> register(writer, expected, service, service + "-" + i, 1000 + i))));

        String viewerName = "viewer-" + UUID.randomUUID().toString().substring(0, 8);
        RedisLodestarClient viewer = (RedisLodestarClient) clients.connect(options -> options.clientName(viewerName));
        viewer.discovery().preload(services).toCompletableFuture().join();

        assertThat(difference(expected(expected, services), held(viewer, services))).as("what the preload holds")
                .isEmpty();
        // Batched: a script per batch of services (per bucket on a cluster), never one per service, no page.
        assertThat(viewer.reads.batchReads.sum()).as("read_services calls for %d services", SERVICES)
                .isBetween(1L, (long) SERVICES / 4);
        assertThat(viewer.reads.pageReads.sum()).as("read_service_page calls").isZero();

        // Each service is subscribed: a write to every one reaches the view.
        join(services.stream().map(service -> register(writer, expected, service, service + "-new", 2000)));
        await().atMost(BOUND).untilAsserted(() -> assertThat(difference(expected(expected, services),
                held(viewer, services))).isEmpty());
    }

    @Test
    void aViewWhoseConnectionsWereKilledResyncsEveryServiceInBatchesToExactlyWhatRedisHolds() {
        LodestarClient writer = writer();
        Map<String, Map<String, Integer>> expected = new ConcurrentHashMap<>();
        List<String> services = IntStream.range(0, SERVICES).mapToObj(i -> "svc-" + i).toList();
        join(services.stream().flatMap(service -> IntStream.range(0, 2)
                .mapToObj(i -> register(writer, expected, service, service + "-" + i, 1000 + i))));
        String viewerName = "viewer-" + UUID.randomUUID().toString().substring(0, 8);
        RedisLodestarClient viewer = (RedisLodestarClient) clients.connect(options -> options.clientName(viewerName));
        viewer.discovery().preload(services).toCompletableFuture().join();
        assertThat(difference(expected(expected, services), held(viewer, services))).isEmpty();
        long batchReadsBefore = viewer.reads.batchReads.sum();
        long resyncsBefore = viewer.serviceView.resyncs.sum();

        assertThat(killConnections(viewerName)).as("the viewer's connections killed").isGreaterThanOrEqualTo(2);
        // Written while the viewer reconnects: some of these events are lost to it, only its resync can tell.
        List<CompletableFuture<?>> writes = new ArrayList<>();
        for (int i = 0; i < SERVICES; i += 3) {
            String service = services.get(i);
            writes.add(register(writer, expected, service, service + "-late", 3000));
            writes.add(deregister(writer, expected, service, service + "-0"));
            writes.add(register(writer, expected, service, service + "-1", 3001)); // an update
        }
        join(writes.stream());

        await().atMost(BOUND).untilAsserted(() -> assertThat(difference(expected(expected, services),
                held(viewer, services))).isEmpty());
        assertThat(viewer.serviceView.resyncs.sum()).as("services resynced").isGreaterThan(resyncsBefore);
        assertThat(viewer.reads.batchReads.sum()).as("resynced in batches").isGreaterThan(batchReadsBefore);
        assertThat(viewer.serviceView.peakBatchesInFlight()).as("batches in flight at once")
                .isBetween(1, SyncedView.LIMITS.maxConcurrentBatches());
        assertThat(viewer.serviceView.peakBatchTopicsInFlight()).as("topics of batches in flight at once")
                .isLessThan(SyncedView.LIMITS.maxTopicsInFlight() + SyncedView.LIMITS.maxBatchTopics());
    }

    @Test
    void aViewThatLostEverySubscriptionResyncsEachServiceInBatchesNeverOneByOneAndFollowsEveryOne() {
        // given a viewer holding thousands of services, some of them last changed by an event it applied (so it
        // holds the event's revision, digest and incarnation, not a read's); nothing is written while it is away,
        // so no event can be missed and no gap seen: only the reconnect path (on a cluster, the subscriptions
        // renewed at each slot's owner) reads
        LodestarClient writer = writer();
        Map<String, Map<String, Integer>> expected = new ConcurrentHashMap<>();
        List<String> services = IntStream.range(0, SERVICES).mapToObj(i -> "svc-" + i).toList();
        join(services.stream().map(service -> register(writer, expected, service, service + "-0", 1000)));
        String viewerName = "viewer-" + UUID.randomUUID().toString().substring(0, 8);
        RedisLodestarClient viewer = (RedisLodestarClient) clients.connect(options -> options.clientName(viewerName));
        viewer.discovery().preload(services).toCompletableFuture().join();
        List<String> changed = services.stream().filter(service -> service.hashCode() % 10 == 0).toList();
        join(changed.stream().map(service -> register(writer, expected, service, service + "-1", 1001)));
        await().atMost(BOUND).untilAsserted(() -> assertThat(difference(expected(expected, changed),
                held(viewer, changed))).isEmpty());
        long pageReadsBefore = viewer.reads.pageReads.sum();
        long batchReadsBefore = viewer.reads.batchReads.sum();
        long resyncsBefore = viewer.serviceView.resyncs.sum();
        long unchangedBefore = viewer.reads.unchangedReads.sum();
        long subscribesBefore = viewer.backend.subscribeCommands.sum();

        // when every connection of it is killed, on every node
        assertThat(killConnections(viewerName)).as("the viewer's connections killed").isGreaterThanOrEqualTo(2);

        // then it resyncs every service, in batches (at most the bound at once), none read on its own, each found
        // unchanged (not read again), and is fresh again
        await().atMost(BOUND).until(() -> viewer.serviceView.resyncs.sum() - resyncsBefore >= SERVICES
                && !viewer.discovery().status().stale());
        assertThat(viewer.reads.pageReads.sum()).as("services read on their own").isEqualTo(pageReadsBefore);
        assertThat(viewer.reads.unchangedReads.sum() - unchangedBefore).as("services found unchanged")
                .isEqualTo(viewer.serviceView.resyncs.sum() - resyncsBefore);
        if (!viewer.backend.isCluster()) { // standalone, Lettuce renewed every subscription: none is sent again
            assertThat(viewer.backend.subscribeCommands.sum() - subscribesBefore).as("SSUBSCRIBEs sent").isZero();
        }
        assertThat(viewer.reads.batchReads.sum() - batchReadsBefore).as("read_services calls")
                .isBetween(1L, (long) SERVICES / 4);
        assertThat(viewer.serviceView.peakBatchesInFlight()).as("batches in flight at once")
                .isBetween(1, SyncedView.LIMITS.maxConcurrentBatches());
        assertThat(viewer.serviceView.peakBatchTopicsInFlight()).as("topics of batches in flight at once")
                .isLessThan(SyncedView.LIMITS.maxTopicsInFlight() + SyncedView.LIMITS.maxBatchTopics());
        // and every service is subscribed again: a write to each reaches the view
        join(services.stream().map(service -> register(writer, expected, service, service + "-new", 2000)));
        await().atMost(BOUND).untilAsserted(() -> assertThat(difference(expected(expected, services),
                held(viewer, services))).isEmpty());
    }

    @Test
    void channelsSubscribedOnTheCurrentConnectionAreNotSentAgainUntilUnsubscribed() throws Exception {
        // given a batch of channels of one slot subscribed through a client's backend
        RedisBackend backend = ((RedisLodestarClient) clients.connect()).backend;
        String tag = "{" + clients.namespace() + "}";
        List<String> channels = IntStream.range(0, 100).mapToObj(i -> tag + ":again:" + i).toList();
        backend.subscribe(channels).toCompletableFuture().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long sent = backend.subscribeCommands.sum();

        // when they are subscribed again, then one of them unsubscribed and the batch subscribed once more
        backend.subscribe(channels).toCompletableFuture().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long sentAgain = backend.subscribeCommands.sum() - sent;
        backend.unsubscribe(channels.get(0)).toCompletableFuture().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        backend.subscribe(channels).toCompletableFuture().get(BOUND.toSeconds(), TimeUnit.SECONDS);

        // then nothing was sent for the confirmed ones, and one SSUBSCRIBE for the unsubscribed one
        assertThat(sentAgain).isZero();
        assertThat(backend.subscribeCommands.sum() - sent).isEqualTo(1);
    }

    @Test
    void aBatchedReadLeavesOutOnlyServicesWhoseKnownStateIsExactlyRedisOwn() {
        // given three services a view holds (of one bucket: on a cluster, a batch is of one slot)
        LodestarClient writer = writer();
        Map<String, Map<String, Integer>> expected = new ConcurrentHashMap<>();
        List<String> services = IntStream.range(0, 100_000).mapToObj(i -> "s" + i)
                .filter(service -> Keys.bucket(service) == Keys.bucket("s0")).limit(3).toList();
        String written = services.get(1);
        join(services.stream().map(service -> register(writer, expected, service, service + "-0", 1000)));
        RedisLodestarClient viewer = (RedisLodestarClient) clients.connect();
        List<SyncedView.Versioned<ServiceSnapshot>> known = services.stream()
                .map(service -> viewer.reads.serviceForView(service).toCompletableFuture().join()).toList();

        // when one is written after, and the view's state of another is forged: its revision with another digest
        register(writer, expected, written, written + "-1", 1001).join();
        SyncedView.Versioned<ServiceSnapshot> real = known.get(2);
        SyncedView.Versioned<ServiceSnapshot> forged = new SyncedView.Versioned<>(real.revision(), real.value(),
                "0".repeat(40), real.incarnation());
        List<SyncedView.Versioned<ServiceSnapshot>> read = viewer.reads.servicesForView(services,
                List.of(known.get(0), known.get(1), forged)).stream().map(CompletableFuture::join).toList();

        // then only the unchanged one is answered with the state the view holds; the others are read whole
        assertThat(read.get(0)).isSameAs(known.get(0));
        assertThat(viewer.reads.unchangedReads.sum()).isEqualTo(1);
        assertThat(read.get(1).revision()).isGreaterThan(known.get(1).revision());
        assertThat(ports(read.get(1).value().instances())).isEqualTo(expected.get(written));
        assertThat(read.get(2)).isNotSameAs(forged).isEqualTo(real);
    }

    @Test
    void aServiceOfTenThousandInstancesLoadsInPagesWhileWritesGoOnAndEndsExactlyAsRedisHoldsIt() throws Exception {
        LodestarClient writer = writer();
        Map<String, Map<String, Integer>> expected = new ConcurrentHashMap<>();
        String service = "large";
        join(IntStream.range(0, 10_000).mapToObj(i -> register(writer, expected, service, "i-" + i, 1000)));

        // One writer, call after call, so what Redis holds at the end is exactly what it did last.
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> writeFailure = new AtomicReference<>();
        Thread churn = new Thread(() -> {
            int next = 10_000;
            try {
                while (writing.get()) {
                    int pick = ThreadLocalRandom.current().nextInt(next);
                    switch (pick % 3) {
                        case 0 -> register(writer, expected, service, "i-" + next++, 2000).join();
                        case 1 -> deregister(writer, expected, service, "i-" + pick).join();
                        default -> register(writer, expected, service, "i-" + pick, 3000 + pick % 100).join();
                    }
                }
            } catch (Throwable e) {
                writeFailure.set(e);
            }
        }, "churn");
        churn.start();
        RedisLodestarClient first;
        RedisLodestarClient second;
        try {
            first = (RedisLodestarClient) clients.connect();
            assertThat(first.discovery().getInstances(service)).hasSizeGreaterThan(RegistryReads.PAGE);
            second = (RedisLodestarClient) clients.connect();
            second.discovery().preload(List.of(service)).toCompletableFuture().join();
            try {
                writer.directDiscovery().getInstances(service); // may fail while writes go on: that is its contract
            } catch (UnavailableException changedDuringEveryAttempt) {
                assertThat(changedDuringEveryAttempt).hasMessageContaining("paged reads");
            }
        } finally {
            writing.set(false);
            churn.join(BOUND.toMillis());
        }
        assertThat(writeFailure.get()).as("writes").isNull();

        Map<String, Map<String, Integer>> want = expected(expected, List.of(service));
        for (RedisLodestarClient viewer : List.of(first, second)) {
            assertThat(viewer.reads.pageReads.sum()).as("pages read").isGreaterThanOrEqualTo(
                    10_000 / RegistryReads.PAGE);
            await().atMost(BOUND).untilAsserted(() -> assertThat(difference(want, held(viewer, List.of(service))))
                    .isEmpty());
        }
        assertThat(difference(want, Map.of(service, ports(writer.directDiscovery().getInstances(service)))))
                .as("a direct read once writes stopped").isEmpty();
    }

    private LodestarClient writer() {
        return clients.connect(options -> options.deregisterOnClose(false));
    }

    private static CompletableFuture<?> register(LodestarClient writer, Map<String, Map<String, Integer>> expected,
                                                 String service, String id, int port) {
        ServiceInstance instance = ServiceInstance.builder(service, id).host("10.0.0.1").port(port)
                .ttl(Duration.ZERO).build();
        return writer.registry().async().register(instance).toCompletableFuture().thenRun(() ->
                expected.computeIfAbsent(service, s -> new ConcurrentHashMap<>()).put(id, port));
    }

    private static CompletableFuture<?> deregister(LodestarClient writer, Map<String, Map<String, Integer>> expected,
                                                   String service, String id) {
        return writer.registry().async().deregister(service, id).toCompletableFuture().thenRun(() ->
                expected.computeIfAbsent(service, s -> new ConcurrentHashMap<>()).remove(id));
    }

    /**
     * Starts the calls (a lazy stream) at most {@link #IN_FLIGHT} at a time and waits for all: ten thousand at once
     * outlast the command timeout on a busy two-core machine before Redis has answered the first of them.
     */
    private static void join(Stream<CompletableFuture<?>> calls) {
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (Iterator<CompletableFuture<?>> next = calls.iterator(); next.hasNext(); ) {
            inFlight.add(next.next());
            if (inFlight.size() == IN_FLIGHT || !next.hasNext()) {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
                inFlight.clear();
            }
        }
    }

    private static Map<String, Map<String, Integer>> expected(Map<String, Map<String, Integer>> expected,
                                                              List<String> services) {
        Map<String, Map<String, Integer>> sorted = new TreeMap<>();
        for (String service : services) {
            sorted.put(service, new TreeMap<>(expected.getOrDefault(service, Map.of())));
        }
        return sorted;
    }

    /** Per service, what differs (at most 10 instances each, so a failure reads): empty when all are equal. */
    private static Map<String, String> difference(Map<String, Map<String, Integer>> expected,
                                                  Map<String, Map<String, Integer>> actual) {
        Map<String, String> differences = new TreeMap<>();
        for (Map.Entry<String, Map<String, Integer>> want : expected.entrySet()) {
            Map<String, Integer> got = actual.get(want.getKey());
            if (got == null) {
                differences.put(want.getKey(), "not held");
                continue;
            }
            List<String> wrong = new ArrayList<>();
            want.getValue().forEach((id, port) -> {
                if (!port.equals(got.get(id))) {
                    wrong.add(id + " want " + port + " got " + got.get(id));
                }
            });
            got.keySet().stream().filter(id -> !want.getValue().containsKey(id)).forEach(id -> wrong.add(id
                    + " not in Redis"));
            if (!wrong.isEmpty()) {
                differences.put(want.getKey(), wrong.size() + " wrong: " + wrong.subList(0, Math.min(10,
                        wrong.size())));
            }
        }
        return differences;
    }

    /** What the view holds, without loading anything it does not hold. */
    private static Map<String, Map<String, Integer>> held(RedisLodestarClient viewer, List<String> services) {
        Map<String, Map<String, Integer>> held = new TreeMap<>();
        for (String service : services) {
            var snapshot = viewer.serviceView.api().getIfHeld(service);
            held.put(service, snapshot == null ? null : ports(snapshot.instances()));
        }
        return held;
    }

    private static Map<String, Integer> ports(List<ServiceInstance> instances) {
        return instances.stream().collect(Collectors.toMap(ServiceInstance::instanceId, ServiceInstance::port,
                (a, b) -> a, TreeMap::new));
    }

    /** Kills every connection of the client of that name, on every node; how many. */
    private long killConnections(String clientName) {
        long killed = 0;
        for (String uri : nodeUris()) {
            RedisClient raw = RedisClient.create(uri);
            try (StatefulRedisConnection<String, String> connection = raw.connect()) {
                for (String line : connection.sync().clientList().split("\n")) {
                    if (line.contains(" name=" + clientName + " ")) {
                        String id = line.substring(3, line.indexOf(' '));
                        killed += connection.sync().clientKill(KillArgs.Builder.id(Long.parseLong(id)));
                    }
                }
            } finally {
                raw.shutdown();
            }
        }
        return killed;
    }
}
