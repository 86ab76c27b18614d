package io.lodestar.jmh;

import io.lodestar.core.ConfigService;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.Subscription;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Propagation latency: the time from the start of a write by client A until client B's local view shows it, per
 * operation (sample mode: JMH reports p50, p90, p99, p99.9... of the samples).
 *
 * <p>A and B are two clients in this JVM with their own connections, on the same Redis. B subscribes a listener
 * to the service (or config entry). A view updates its state first and then hands the event to the listeners, so
 * when B's listener has seen the write, B's view shows it. The listener records what it saw in a volatile field
 * and unparks the benchmark thread, which parks (bounded, never a fixed sleep) until it sees the write. So a
 * sample is: A's script round trip, the event's way over PubSub to B's view thread, the view update, the hand-over
 * to B's listener thread and the wake-up of the measuring thread — an upper bound of the view's own latency.
 * <ul>
 *   <li>{@code register}: A registers a new instance; done when B has seen the registration's revision. The
 *       instance is deregistered after every call (and B has seen that), outside the measured time;</li>
 *   <li>{@code setMetadata}: A sets a sequence number as the metadata of a registered instance; done when B has
 *       seen that number;</li>
 *   <li>{@code configSet}: A sets a 1 KiB entry (alternating contents); done when B has seen the new version.</li>
 * </ul>
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar PropagationBenchmark -rf json -rff jmh/results-propagation.json
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class PropagationBenchmark {
    /** The longest a write may take to reach B before the benchmark fails. */
    static final long TIMEOUT_MS = 5_000;
    static final String CONFIG_ID = "orders/propagation.properties";

    /** Client A writes the service, client B's view holds it and tells a listener. */
    @State(Scope.Benchmark)
    public static class Service {
        BenchRedis redis;
        ServiceRegistry writer;
        ServiceDiscovery view;
        Subscription subscription;
        String residentId;
        long seq;
        volatile long seenRevision;
        volatile long seenSeq;
        volatile Thread waiter;

        /** Registers a resident instance, subscribes B and checks that a first change gets through. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient a = redis.client("jmh-a");
            LodestarClient b = redis.client("jmh-b");
            ServiceInstance resident = Fixtures.instance(Fixtures.SERVICE, 0);
            residentId = resident.instanceId();
            redis.registerAll(a, List.of(resident));
            writer = a.registry();
            view = b.discovery();
            view.getInstances(Fixtures.SERVICE);
            subscription = view.subscribe(Fixtures.SERVICE, this::onEvent);
            setMetadataAndAwait();
        }

        private void onEvent(ServiceEvent event) {
            if (event instanceof InstanceUpdated updated) {
                String value = updated.instance().metadata("seq");
                if (value != null) {
                    seenSeq = Long.parseLong(value);
                }
            }
            seenRevision = event.revision();
            Thread thread = waiter;
            if (thread != null) {
                LockSupport.unpark(thread);
            }
        }

        long register(ServiceInstance instance) {
            waiter = Thread.currentThread();
            long revision = writer.register(instance).revision();
            Fixtures.await(() -> seenRevision >= revision, TIMEOUT_MS, "B to see revision " + revision);
            return revision;
        }

        long setMetadataAndAwait() {
            waiter = Thread.currentThread();
            long next = ++seq;
            writer.setMetadata(Fixtures.SERVICE, residentId, Map.of("seq", Long.toString(next)));
            Fixtures.await(() -> seenSeq >= next, TIMEOUT_MS, "B to see metadata seq=" + next);
            return next;
        }

        /** Unsubscribes, stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            subscription.close();
            redis.close();
        }
    }

    /** The instance {@code register} adds; removed again (and seen removed by B) after every call. */
    @State(Scope.Thread)
    public static class Newcomer {
        Service service;
        ServiceInstance instance;

        /** Picks the instance. */
        @Setup(Level.Trial)
        public void setUp(Service service) {
            this.service = service;
            this.instance = Fixtures.ephemeral(Fixtures.SERVICE, 1);
        }

        /** Deregisters it and waits until B's view no longer shows it. */
        @TearDown(Level.Invocation)
        public void deregister() {
            service.waiter = Thread.currentThread();
            service.writer.deregister(Fixtures.SERVICE, instance.instanceId());
            Fixtures.await(() -> service.view.getInstance(Fixtures.SERVICE, instance.instanceId()).isEmpty(),
                    TIMEOUT_MS, "B to see the deregistration");
        }
    }

    /** Client A writes the entry, client B's view holds it and tells a listener. */
    @State(Scope.Benchmark)
    public static class Config {
        BenchRedis redis;
        ConfigService writer;
        Subscription subscription;
        List<String> contents;
        int calls;
        volatile long seenVersion;
        volatile Thread waiter;

        /** Writes the entry, subscribes B and checks that a first change gets through. */
        @Setup(Level.Trial)
        public void setUp() {
            redis = BenchRedis.start();
            LodestarClient a = redis.client("jmh-a");
            LodestarClient b = redis.client("jmh-b");
            contents = List.of(Fixtures.properties(1024, 1), Fixtures.properties(1024, 2));
            redis.setConfig(a, CONFIG_ID, Fixtures.properties(1024, 0));
            writer = a.config();
            ConfigService reader = b.config();
            reader.get(CONFIG_ID);
            subscription = reader.subscribe(CONFIG_ID, this::onEvent);
            setAndAwait();
        }

        private void onEvent(ConfigEvent event) {
            seenVersion = event.version();
            Thread thread = waiter;
            if (thread != null) {
                LockSupport.unpark(thread);
            }
        }

        long setAndAwait() {
            waiter = Thread.currentThread();
            long version = writer.set(CONFIG_ID, contents.get(calls++ & 1), ConfigFormat.PROPERTIES).version();
            Fixtures.await(() -> seenVersion >= version, TIMEOUT_MS, "B to see version " + version);
            return version;
        }

        /** Unsubscribes, stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            subscription.close();
            redis.close();
        }
    }

    /** @return the revision of the registration, once B has seen it */
    @Benchmark
    public long register(Service service, Newcomer newcomer) {
        return service.register(newcomer.instance);
    }

    /** @return the sequence number written, once B has seen it */
    @Benchmark
    public long setMetadata(Service service) {
        return service.setMetadataAndAwait();
    }

    /** @return the version written, once B has seen it */
    @Benchmark
    public long configSet(Config config) {
        return config.setAndAwait();
    }
}
