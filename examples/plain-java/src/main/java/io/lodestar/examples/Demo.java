package io.lodestar.examples;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.ConnectionStateListener;
import io.lodestar.core.Lodestar;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.EmptyPolicy;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.jspecify.annotations.Nullable;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The main demo: two "applications" share one Redis. One registers instances of {@code orders}; the other (the
 * gateway) discovers them through its local view, balances requests over them (weighted, preferring its zone),
 * watches an instance expire and follows live configuration. Then the failure story: Redis is killed, the gateway
 * keeps answering from its view and reports it stale, a write fails fast, Redis comes back and the view heals.
 * Every timing it prints is measured on the spot.
 *
 * <p>Uses {@code LODESTAR_REDIS_URI} when set (and then skips the outage: it never kills a Redis it did not start);
 * otherwise starts a private Redis (from PATH, or the binary shipped in the embedded-redis artifact) that is stopped
 * at the end, also when the demo fails. Run it with:
 * {@code ./mvnw -q -Pdemo -DskipTests -pl examples/plain-java -am verify}
 */
public final class Demo {
    private static final String SERVICE = "orders";
    private static final Duration OUTAGE = Duration.ofSeconds(2);
    /** Bound of every wait: a demo that waits longer than this has found a bug, and fails saying which. */
    private static final Duration PATIENCE = Duration.ofSeconds(10);
    private static final int VIEW_READS = 20_000;
    private static final int DIRECT_READS = 500;
    private static final Set<String> ABC = Set.of("orders-a", "orders-b", "orders-c");

    private Demo() {
    }

    /**
     * @param args unused
     */
    public static void main(String[] args) {
        String configured = System.getenv("LODESTAR_REDIS_URI");
        if (configured != null) {
            run(configured, null, System.out);
        } else {
            runWithPrivateRedis(System.out);
        }
    }

    /**
     * Starts a private Redis, runs the whole demo against it, and stops it: on return, on failure, and on Ctrl-C
     * (a shutdown hook), so no {@code redis-server} is left behind.
     */
    static Outcome runWithPrivateRedis(PrintStream out) {
        try (RedisServer redis = TestRedis.startStandalone()) {
            Thread stopRedis = new Thread(redis::close, "demo-stop-redis");
            Runtime.getRuntime().addShutdownHook(stopRedis);
            try {
                out.println("Redis: " + redis.uri() + " (private, started for this demo: "
                        + TestRedis.describeSource() + ")");
                return run(redis.uri(), redis, out);
            } finally {
                removeShutdownHook(stopRedis);
            }
        }
    }

    /**
     * Runs the demo.
     *
     * @param uri   the Redis to use
     * @param owned the same Redis when the demo started it (and may kill it); null for the user's Redis
     * @param out   where the story is told
     * @return what happened, for {@code DemoIT}
     * @throws IllegalStateException if something the story promises does not happen within {@link #PATIENCE}
     */
    static Outcome run(String uri, @Nullable RedisServer owned, PrintStream out) {
        long started = System.nanoTime();
        if (owned == null) {
            out.println("Redis: " + LodestarOptions.redact(uri) + " (from LODESTAR_REDIS_URI)");
        }
        LodestarOptions options = LodestarOptions.builder(uri).namespace("demo")
                .sweepInterval(Duration.ofSeconds(1)).build();
        Heard heard = new Heard(out);
        Outcome.Builder outcome = new Outcome.Builder();
        try (LodestarClient ordersApp = Lodestar.connect(options);
             LodestarClient gateway = Lodestar.connect(options)) {
            gateway.discovery().subscribe(SERVICE, event -> {
                if (event instanceof InstanceRegistered registered) {
                    heard.add("[gateway] event: " + registered.instance().instanceId() + " registered (revision "
                            + registered.revision() + ")");
                    heard.instances.add(registered.instance().instanceId());
                } else if (event instanceof InstanceExpired gone) {
                    heard.add("[gateway] event: " + gone.instanceId() + " expired (revision " + gone.revision() + ")");
                    heard.instances.remove(gone.instanceId());
                    heard.removals.incrementAndGet();
                } else if (event instanceof ServiceResynced resynced) {
                    if (!ids(resynced.snapshot().instances()).containsAll(heard.instances)) {
                        heard.removals.incrementAndGet();
                    }
                    heard.add("[gateway] event: view resynced from Redis, " + resynced.snapshot().instances().size()
                            + " instances");
                    heard.instances.retainAll(ids(resynced.snapshot().instances()));
                    heard.instances.addAll(ids(resynced.snapshot().instances()));
                }
                heard.serviceEvents.incrementAndGet();
            });

            register(ordersApp, gateway, heard, out);
            compareReads(gateway, out, outcome);
            balance(gateway, out);
            expire(uri, gateway, heard, out);
            configure(ordersApp, gateway, heard, out);
            if (owned == null) {
                out.println("\n7. The outage (steps 7-10) is skipped: this Redis came from LODESTAR_REDIS_URI,");
                out.println("   and the demo never kills a Redis it did not start. Unset it to see the outage.");
            } else {
                outage(owned, ordersApp, gateway, heard, out, outcome);
            }
        }
        out.println("\nClosed: the orders app deregistered its instances on close.");
        out.printf("Done in %.1f s.%n", seconds(System.nanoTime() - started));
        return outcome.build();
    }

    private static void register(LodestarClient ordersApp, LodestarClient gateway, Heard heard, PrintStream out) {
        out.println("\n1. The orders app registers three instances (weights 300/100/100, two zones)");
        long start = System.nanoTime();
        ordersApp.registry().register(instance("orders-a", "eu-1", 300));
        ordersApp.registry().register(instance("orders-b", "eu-1", 100));
        ordersApp.registry().register(instance("orders-c", "us-1", 100));
        long registered = System.nanoTime();
        long inView = await("the gateway's view to hold the 3 instances",
                () -> gateway.discovery().getInstances(SERVICE).size() == 3);
        await("the gateway's listener to hear the 3 instances", () -> heard.instances.equals(ABC));
        heard.flush();
        out.printf("   3 writes took %s; the gateway's view held all 3 %s after the last one%n",
                millis(registered - start), millis(inView - registered));

        out.println("\n2. The gateway reads them from its local view (no Redis round trip)");
        gateway.discovery().getInstances(SERVICE).forEach(i -> out.printf("   %s %s weight=%d zone=%s%n",
                i.instanceId(), i.uri(), i.weight(), i.metadata("zone")));
        out.println("   services: " + gateway.discovery().getServices());
    }

    private static void compareReads(LodestarClient gateway, PrintStream out, Outcome.Builder outcome) {
        out.println("\n3. The same lookup, getInstances(\"orders\"), from the view and from Redis");
        long view = medianNanos(gateway.discovery(), VIEW_READS);
        long direct = medianNanos(gateway.directDiscovery(), DIRECT_READS);
        out.printf("   view (discovery()):         %s%n", micros(view));
        out.printf("   direct (directDiscovery()): %s   (%,d times the view's)%n", micros(direct),
                direct / Math.max(1, view));
        out.printf("   median of %,d and %,d reads, each timed with System.nanoTime(), after warm-up%n",
                VIEW_READS, DIRECT_READS);
        outcome.viewRead = Duration.ofNanos(view);
        outcome.directRead = Duration.ofNanos(direct);
    }

    private static void balance(LodestarClient gateway, PrintStream out) {
        out.println("\n4. 10,000 requests through a weighted balancer that prefers zone eu-1");
        LoadBalancer balancer = LoadBalancers.weightedRandom()
                .selector(Selectors.zonePreference("eu-1"))
                .onEmpty(EmptyPolicy.FAIL)
                .build();
        Map<String, Integer> hits = new TreeMap<>();
        for (int i = 0; i < 10_000; i++) {
            ServiceInstance target = balancer.choose(gateway.discovery().getInstances(SERVICE));
            hits.merge(target.instanceId(), 1, Integer::sum);
        }
        out.println("   " + hits + "   (expect about 3:1, and none in us-1)");
    }

    private static void expire(String uri, LodestarClient gateway, Heard heard, PrintStream out) {
        out.println("\n5. A process registers orders-tmp with a 2 s TTL, then dies without deregistering");
        long start;
        try (LodestarClient crashing = Lodestar.connect(LodestarOptions.builder(uri).namespace("demo")
                .deregisterOnClose(false).build())) {
            crashing.registry().register(ServiceInstance.builder(SERVICE, "orders-tmp").host("10.0.0.9")
                    .port(8080).ttl(Duration.ofSeconds(2)).metadata("zone", "eu-1").build());
            start = System.nanoTime();
        }
        long gone = await("orders-tmp to expire from the gateway's view", () -> gateway.discovery()
                .getInstances(SERVICE).stream().noneMatch(i -> i.instanceId().equals("orders-tmp")));
        await("the gateway's listener to hear orders-tmp come and go", () -> heard.serviceEvents.get() >= 5
                && heard.instances.equals(ABC));
        heard.flush();
        out.printf("   gone from the gateway's view %.1f s after its last renewal (TTL 2 s + sweep every 1 s)%n",
                seconds(gone - start));
    }

    private static void configure(LodestarClient ordersApp, LodestarClient gateway, Heard heard, PrintStream out) {
        out.println("\n6. Live configuration: the gateway listens, the orders app writes");
        AtomicInteger versions = new AtomicInteger();
        gateway.config().subscribe("orders/limits", event -> {
            heard.add("[gateway] config event: " + event.getClass().getSimpleName() + " version " + event.version());
            versions.incrementAndGet();
        });
        ConfigEntry first = ordersApp.config().set("orders/limits", "max-requests: 100\n", ConfigFormat.YAML);
        ordersApp.config().set("orders/limits", "max-requests: 500\n", ConfigFormat.YAML);
        long rolledBack = ordersApp.config().rollback("orders/limits", first.version()).version();
        await("the gateway to see version " + rolledBack + " of orders/limits", () -> gateway.config()
                .get("orders/limits").map(entry -> entry.version() == rolledBack).orElse(false));
        await("the gateway's listener to hear 3 versions", () -> versions.get() >= 3);
        heard.flush();
        ConfigEntry limits = gateway.config().get("orders/limits").orElseThrow();
        out.printf("   current: version %d, %s%n", limits.version(), limits.content().strip());
        out.println("   history: " + ordersApp.config().history("orders/limits").stream()
                .map(entry -> "v" + entry.version()).toList());
        ordersApp.config().remove("orders/limits");
        await("the gateway's listener to hear the removal", () -> versions.get() >= 4);
        heard.flush();
    }

    private static void outage(RedisServer redis, LodestarClient ordersApp, LodestarClient gateway, Heard heard,
                               PrintStream out, Outcome.Builder outcome) {
        ServiceDiscovery view = gateway.discovery();
        long[] since = {System.nanoTime()};
        AtomicInteger lost = new AtomicInteger();
        AtomicInteger connected = new AtomicInteger();
        gateway.addConnectionStateListener(new ConnectionStateListener() {
            @Override
            public void connected(String node) {
                connected.incrementAndGet();
                heard.add("[gateway] connected to " + node + " (+" + millis(System.nanoTime() - since[0]) + ")");
            }

            @Override
            public void disconnected(String node) {
                lost.incrementAndGet();
                heard.add("[gateway] lost " + node + " (+" + millis(System.nanoTime() - since[0]) + ")");
            }
        });
        heard.flush();

        out.printf("%n7. Redis is killed (SIGKILL, as a crash) and stays down for %d s%n", OUTAGE.toSeconds());
        since[0] = System.nanoTime();
        redis.kill(); // returns once the process is dead
        long stale = await("the gateway's view to report stale", () -> view.status().stale());
        await("the gateway's connection listener to hear the loss", () -> lost.get() > 0);
        sleep(OUTAGE);
        heard.flush();
        out.printf("   the gateway's view reported stale %s after the kill began%n", millis(stale - since[0]));

        out.println("\n8. Meanwhile the gateway keeps answering from its view, and says it is stale");
        List<ServiceInstance> served = view.getInstances(SERVICE);
        ViewStatus status = view.status();
        ClientHealth health = gateway.health();
        out.printf("   getInstances(\"orders\"): %s%n", ids(served));
        out.printf("   a read still takes %s (median of %,d), no I/O%n", micros(medianNanos(view, 1_000)), 1_000);
        out.printf("   status(): stale=%s, stale for %.1f s%n", status.stale(), seconds(status.staleFor().toNanos()));
        out.println("   health(): healthy=" + health.healthy() + ", " + nodes(health));
        outcome.staleDuringOutage = status.stale();
        outcome.staleFor = status.staleFor();
        outcome.servedDuringOutage = served.size();

        out.println("\n9. A write while Redis is down fails fast");
        long writeStart = System.nanoTime();
        try {
            ordersApp.registry().register(instance("orders-d", "eu-1", 100));
            out.println("   register(orders-d) succeeded: unexpected while Redis is down");
        } catch (LodestarException e) {
            long failedAfter = System.nanoTime() - writeStart;
            out.printf("   register(orders-d) threw %s after %s:%n", e.getClass().getSimpleName(), millis(failedAfter));
            out.println("   \"" + e.getMessage() + "\"");
            outcome.writeFailure = e;
            outcome.writeFailedAfter = Duration.ofNanos(failedAfter);
        }

        out.println("\n10. Redis comes back on the same port (empty: this private Redis keeps no data)");
        connected.set(0);
        heard.serviceEvents.set(0);
        heard.removals.set(0);
        AtomicInteger fewest = new AtomicInteger(Integer.MAX_VALUE);
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> { // a caller reading all the time
            while (sampling.get()) {
                fewest.accumulateAndGet(view.getInstances(SERVICE).size(), Math::min);
                LockSupport.parkNanos(100_000); // every 0.1 ms: an empty list would last far longer
            }
        }, "demo-reader");
        sampler.setDaemon(true);
        sampler.start();
        long restartStart = System.nanoTime();
        redis.restart(); // returns once Redis answers PING
        long answering = System.nanoTime();
        long fresh = await("the gateway's view to be fresh again", () -> !view.status().stale());
        long back = await("the orders instances to be back in the gateway's view",
                () -> Set.copyOf(ids(view.getInstances(SERVICE))).equals(ABC));
        await("the gateway's listener to hear them back", () -> heard.serviceEvents.get() > 0
                && heard.instances.equals(ABC));
        long healthy = await("the gateway's health() to be healthy", () -> gateway.health().healthy());
        await("the gateway's connection listener to hear it connect again", () -> connected.get() > 0);
        sampling.set(false);
        heard.flush();
        out.printf("   Redis answered PING %s after the restart began%n", millis(answering - restartStart));
        out.printf("   view fresh again %s after that (goal: within 1 s, %s)%n", millis(fresh - answering),
                fresh - answering <= Duration.ofSeconds(1).toNanos() ? "met" : "missed on this run");
        out.printf("   orders-a, -b, -c back in the view %s after it (the orders app registered%n",
                millis(back - answering));
        out.println("   them again with its first renewal, as Redis had lost them)");
        out.printf("   meanwhile the gateway's view never went empty (it served at least %d instances: Redis had%n",
                fewest.get());
        out.printf("   lost them, the view kept them for their owner) and its listener heard %d removals%n",
                heard.removals.get());
        ClientHealth healed = gateway.health();
        out.printf("   health(): healthy=%s %s after it, %s%n", healed.healthy(), millis(healthy - answering),
                nodes(healed));
        outcome.freshAfterRestart = !view.status().stale();
        outcome.freshAfter = Duration.ofNanos(fresh - answering);
        outcome.servedAfterRestart = ids(view.getInstances(SERVICE));
        outcome.fewestDuringRestart = fewest.get();
        outcome.removalsDuringRestart = heard.removals.get();
    }

    /** The median time of one read, after warming up with as many reads. */
    private static long medianNanos(ServiceDiscovery discovery, int reads) {
        int sink = 0;
        for (int i = 0; i < reads; i++) {
            sink += discovery.getInstances(SERVICE).size();
        }
        long[] times = new long[reads];
        for (int i = 0; i < reads; i++) {
            long start = System.nanoTime();
            sink += discovery.getInstances(SERVICE).size();
            times[i] = System.nanoTime() - start;
        }
        if (sink == 42) { // keeps the JIT from dropping the reads
            System.out.print("");
        }
        Arrays.sort(times);
        return times[reads / 2];
    }

    /** Waits (polling every millisecond) until the condition holds; returns System.nanoTime() at that moment. */
    private static long await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The demo waited " + PATIENCE.toSeconds() + " s for " + what
                        + ", in vain");
            }
            sleep(Duration.ofMillis(1));
        }
        return System.nanoTime();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("The demo was interrupted", e);
        }
    }

    private static void removeShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting: the hook runs, and closing twice is harmless
        }
    }

    private static ServiceInstance instance(String id, String zone, int weight) {
        return ServiceInstance.builder(SERVICE, id).host("10.0.0." + (id.charAt(id.length() - 1) - 'a' + 1))
                .port(8080).weight(weight).metadata("zone", zone).build();
    }

    private static List<String> ids(List<ServiceInstance> instances) {
        return instances.stream().map(ServiceInstance::instanceId).toList();
    }

    private static String nodes(ClientHealth health) {
        return health.nodes().stream().map(node -> node.address() + (node.connected() ? " connected" : " disconnected"))
                .collect(Collectors.joining(", "));
    }

    private static String millis(long nanos) {
        return nanos < 10_000_000 ? String.format("%.1f ms", nanos / 1e6) : (nanos / 1_000_000) + " ms";
    }

    private static String micros(long nanos) {
        return nanos < 10_000 ? String.format("%.2f µs", nanos / 1e3) : (nanos / 1_000) + " µs";
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /** Lines heard on listener threads, printed by the main thread between steps so the output stays in order. */
    private static final class Heard {
        private final PrintStream out;
        private final Queue<String> lines = new ConcurrentLinkedQueue<>();
        /** The orders instances as the listener heard them: what a listener-fed cache would hold. */
        final Set<String> instances = ConcurrentHashMap.newKeySet();
        final AtomicInteger serviceEvents = new AtomicInteger();
        /** Events that took an instance away (expired, or a resync without it). */
        final AtomicInteger removals = new AtomicInteger();

        Heard(PrintStream out) {
            this.out = out;
        }

        void add(String line) {
            lines.add(line);
        }

        void flush() {
            for (String line; (line = lines.poll()) != null; ) {
                out.println("   " + line);
            }
        }
    }

    /**
     * What the demo saw, for {@code DemoIT}.
     *
     * @param viewRead           median time of one read from the view
     * @param directRead         median time of one direct read
     * @param outageShown        whether the demo killed and restarted Redis (only a Redis it started itself)
     * @param staleDuringOutage  whether the view reported stale during the outage
     * @param staleFor           the staleness age it reported
     * @param servedDuringOutage how many instances the view served during the outage
     * @param writeFailure       what a write during the outage threw; null if it did not throw
     * @param writeFailedAfter   how long that write took to fail
     * @param freshAfterRestart  whether the view was fresh again after the restart
     * @param freshAfter         from Redis answering again to the view being fresh
     * @param servedAfterRestart the instance ids the view served once healed
     * @param fewestDuringRestart   the fewest instances the view served from Redis' restart (without its data) until
     *                              healed (-1 when no outage was shown)
     * @param removalsDuringRestart the events that took an instance away the gateway's listener heard meanwhile
     */
    record Outcome(Duration viewRead, Duration directRead, boolean outageShown, boolean staleDuringOutage,
                   @Nullable Duration staleFor, int servedDuringOutage, @Nullable LodestarException writeFailure,
                   @Nullable Duration writeFailedAfter, boolean freshAfterRestart, @Nullable Duration freshAfter,
                   List<String> servedAfterRestart, int fewestDuringRestart, int removalsDuringRestart) {

        private static final class Builder {
            private Duration viewRead = Duration.ZERO;
            private Duration directRead = Duration.ZERO;
            private boolean staleDuringOutage;
            private @Nullable Duration staleFor;
            private int servedDuringOutage;
            private @Nullable LodestarException writeFailure;
            private @Nullable Duration writeFailedAfter;
            private boolean freshAfterRestart;
            private @Nullable Duration freshAfter;
            private List<String> servedAfterRestart = List.of();
            private int fewestDuringRestart = -1;
            private int removalsDuringRestart;

            Outcome build() {
                return new Outcome(viewRead, directRead, freshAfter != null, staleDuringOutage, staleFor,
                        servedDuringOutage, writeFailure, writeFailedAfter, freshAfterRestart, freshAfter,
                        servedAfterRestart, fewestDuringRestart, removalsDuringRestart);
            }
        }
    }
}
