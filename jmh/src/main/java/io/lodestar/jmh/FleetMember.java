package io.lodestar.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lodestar.core.Initial;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;

/**
 * One JVM of the fleet harness ({@link FleetHarness}): {@code clients} Lodestar clients that share one set of Lettuce
 * {@link ClientResources} and one scheduler, each holding the same services with a listener, and as many raw Lettuce
 * {@code SSUBSCRIBE} connections (the baseline), subscribed to the raw channels of the same services.
 *
 * <p>A write carries its own start time: the writer stamps the wall-clock epoch nanoseconds ({@link
 * PropagationListener#now()}, the same kernel clock in every process) into the instance's metadata ({@code t}) or
 * the raw message, with its sequence number ({@code seq}); a listener records {@code now - t} when {@code seq} is at
 * least {@code warmup}. Every client counts what it heard, so a client that missed an event shows.
 *
 * <p>On a cluster ({@code redis-cluster://} URI) each raw connection is Lettuce's cluster PubSub connection, one
 * {@code SSUBSCRIBE} per channel sent on the node connection of the master that owns the channel's slot, as the SDK
 * routes its own; a raw channel shares the hash tag of its service's keys ({@link #rawChannel}), so it lives on the
 * same shard as the service.
 *
 * <p>Arguments: Redis URI, namespace, JVM index, clients, services, warm-up writes. Prints {@code READY} with the
 * heap (after GC) and thread counts before the clients, with the Lodestar clients, and with the raw connections too,
 * after a line {@code THREADS} with the live threads by name (digits as {@code N}) once the Lodestar clients run.
 * On stdin: {@code REPORT <lodestarEvents> <rawEvents>} waits (at most 10 s) until every client heard that many
 * measured events of each kind, then prints the histograms, each measured event's write time and slowest
 * client here ({@code EVENTS}) and the counts; {@code CLOSERAW} closes the raw connections
 * (so only Lodestar's clients meet a restart) and prints {@code RAWCLOSED}; {@code FRESH <epoch> <since> <timeoutMs>
 * <service>} polls every client (every 5 ms, bounded) until its view is not stale and service number
 * {@code <service>} shows an instance with metadata {@code epoch=<epoch>}, and prints when each client got there,
 * in ms after {@code <since>} (epoch nanoseconds); end of input closes everything and exits.
 */
public final class FleetMember {
    static final String CLIENT_NAME = "fleet-lodestar";
    static final String RAW_NAME = "fleet-raw";
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(1);
    private static final long REPORT_WAIT_MS = 10_000;

    private final int warmup;
    private final Histogram lodestar = new ConcurrentHistogram(HIGHEST_MICROS, 3);
    private final Histogram raw = new ConcurrentHistogram(HIGHEST_MICROS, 3);
    private final AtomicIntegerArray heardLodestar;
    private final AtomicIntegerArray heardRaw;
    private final AtomicLong resyncs = new AtomicLong();
    /** Per measured event (its sequence number): when it was written (epoch µs) and its slowest client's µs here. */
    private final Map<Long, EventTimes> lodestarTimes = new ConcurrentHashMap<>();
    private final Map<Long, EventTimes> rawTimes = new ConcurrentHashMap<>();

    /** One event's write time and the slowest of this JVM's clients to hear it. */
    private record EventTimes(long writtenMicros, LongAccumulator slowestMicros) {
        EventTimes(long writtenMicros) {
            this(writtenMicros, new LongAccumulator(Math::max, 0));
        }
    }

    private FleetMember(int clients, int warmup) {
        this.warmup = warmup;
        this.heardLodestar = new AtomicIntegerArray(clients);
        this.heardRaw = new AtomicIntegerArray(clients);
    }

    /**
     * @param args Redis URI, namespace, JVM index, clients, services, warm-up writes
     * @throws Exception when setting up fails
     */
    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String namespace = args[1];
        int jvm = Integer.parseInt(args[2]);
        int clients = Integer.parseInt(args[3]);
        int services = Integer.parseInt(args[4]);
        int warmup = Integer.parseInt(args[5]);
        new FleetMember(clients, warmup).run(uri, namespace, jvm, clients, services);
        System.exit(0); // a stray non-daemon thread must not keep a child of the harness alive
    }

    /**
     * Lettuce resources as Lodestar makes its own (RedisBackend.defaultResources, not public): a reconnect delay
     * drawn between 0 and a step that doubles from 1 ms up to 500 ms, and a 10 ms timer tick. Shared resources are
     * used as they are, so without this the crowd would reconnect on Lettuce's defaults (up to 30 s, 100 ms tick) and
     * the restart figures would measure Lettuce's settings, not Lodestar's.
     */
    static ClientResources resources() {
        return ClientResources.builder()
                .reconnectDelay(Delay.fullJitter(Duration.ZERO, Duration.ofMillis(500), 1, TimeUnit.MILLISECONDS))
                .timer(new HashedWheelTimer(new DefaultThreadFactory("fleet-timer", true), 10, TimeUnit.MILLISECONDS))
                .build();
    }

    static String service(int index) {
        return String.format("fleet-%02d", index);
    }

    /**
     * The raw channel of service {@code index}: under the hash tag of the service's own keys ({@code {ns:svc:bucket}},
     * the layout of docs/redis.md, whose bucket is the CRC-32 of the service id modulo 128), so on a cluster it lives
     * on the same shard as the service's events channel.
     */
    static String rawChannel(String namespace, int index) {
        return "fleet-raw:" + serviceTag(namespace, service(index)) + ":" + index;
    }

    /** {@code {ns:svc:bucket}}: the hash tag of a service's keys (Keys.bucket in sdk-redis, not public). */
    static String serviceTag(String namespace, String serviceId) {
        CRC32 crc = new CRC32();
        crc.update(serviceId.getBytes(StandardCharsets.UTF_8));
        return "{" + namespace + ":svc:" + crc.getValue() % 128 + "}";
    }

    static boolean isCluster(String uri) {
        return uri.startsWith("redis-cluster://");
    }

    private void run(String uri, String namespace, int jvm, int clients, int services) throws Exception {
        long[] base = heapAndThreads();
        ClientResources resources = resources();
        ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2,
                new DefaultThreadFactory("fleet-scheduler", true));
        // the views and listeners of every client of this JVM: the harness's listeners only note a time, never block
        ExecutorService executor = Executors.newFixedThreadPool(4, new DefaultThreadFactory("fleet-executor", true));
        List<String> serviceIds = new ArrayList<>();
        for (int s = 0; s < services; s++) {
            serviceIds.add(service(s));
        }
        List<LodestarClient> lodestarClients = new ArrayList<>(clients);
        for (int c = 0; c < clients; c++) {
            LodestarClient client = RedisLodestar.builder(LodestarOptions.builder(uri).namespace(namespace)
                            .clientName(CLIENT_NAME).preloadServices(serviceIds).build())
                    .clientResources(resources).scheduler(scheduler).executor(executor).build();
            lodestarClients.add(client);
            for (String serviceId : serviceIds) {
                client.discovery().subscribe(serviceId, listener(c), Initial.SKIP);
            }
        }
        long[] withLodestar = heapAndThreads();
        OUT.println("THREADS " + threadsByName());

        String[] channels = new String[services];
        for (int s = 0; s < services; s++) {
            channels[s] = rawChannel(namespace, s);
        }
        boolean cluster = isCluster(uri);
        RedisClient rawClient = cluster ? null : RedisClient.create(resources,
                RedisURI.builder(RedisURI.create(uri)).withClientName(RAW_NAME).build());
        RedisClusterClient rawClusterClient = cluster ? RedisClusterClient.create(resources, seeds(uri)) : null;
        List<StatefulRedisPubSubConnection<String, String>> rawConnections = new ArrayList<>(clients);
        for (int c = 0; c < clients; c++) {
            int client = c;
            if (cluster) {
                StatefulRedisClusterPubSubConnection<String, String> connection = rawClusterClient.connectPubSub();
                connection.setNodeMessagePropagation(true);
                connection.addListener(new RedisClusterPubSubAdapter<>() {
                    @Override
                    public void smessage(RedisClusterNode node, String channel, String message) {
                        heardRaw(client, message);
                    }
                });
                for (String channel : channels) { // one SSUBSCRIBE per channel, at the master owning its slot
                    RedisClusterNode owner = connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel));
                    connection.getConnection(owner.getNodeId()).sync().ssubscribe(channel);
                }
                rawConnections.add(connection);
            } else {
                StatefulRedisPubSubConnection<String, String> connection = rawClient.connectPubSub();
                connection.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void smessage(String channel, String message) {
                        heardRaw(client, message);
                    }
                });
                connection.sync().ssubscribe(channels);
                rawConnections.add(connection);
            }
        }
        long[] withRaw = heapAndThreads();
        OUT.printf("READY %d %d %d %d %d %d%n", base[0], base[1], withLodestar[0], withLodestar[1], withRaw[0],
                withRaw[1]);

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] words = line.trim().split(" ");
            switch (words[0]) {
                case "REPORT" -> report(Integer.parseInt(words[1]), Integer.parseInt(words[2]));
                case "CLOSERAW" -> {
                    rawConnections.forEach(StatefulRedisPubSubConnection::close);
                    rawConnections.clear();
                    OUT.println("RAWCLOSED");
                }
                case "FRESH" -> fresh(lodestarClients, words[1], Long.parseLong(words[2]),
                        Long.parseLong(words[3]), service(Integer.parseInt(words[4])));
                default -> throw new IllegalArgumentException("Unknown command " + line);
            }
        }
        for (StatefulRedisPubSubConnection<String, String> connection : rawConnections) {
            connection.close();
        }
        if (rawClient != null) {
            rawClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (rawClusterClient != null) {
            rawClusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        long closing = System.nanoTime();
        for (LodestarClient client : lodestarClients) {
            client.close();
        }
        System.err.printf("fleet JVM %d: closed %d clients in %d ms%n", jvm, clients,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing));
        scheduler.shutdownNow();
        executor.shutdownNow();
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        System.err.printf("fleet JVM %d: closed%n", jvm);
    }

    /** The seed nodes of a {@code redis-cluster://h:p,h:p} URI, each naming its connections {@link #RAW_NAME}. */
    private static List<RedisURI> seeds(String uri) {
        List<RedisURI> seeds = new ArrayList<>();
        for (String hostPort : uri.substring("redis-cluster://".length()).split(",")) {
            seeds.add(RedisURI.builder(RedisURI.create("redis://" + hostPort)).withClientName(RAW_NAME).build());
        }
        return seeds;
    }

    private void heardRaw(int client, String message) {
        long now = PropagationListener.now();
        String[] words = message.split(" ", 3); // seq, stamp, padding to an event's size
        long seq = Long.parseLong(words[0]);
        if (seq >= warmup) {
            record(raw, rawTimes, seq, Long.parseLong(words[1]), now);
            heardRaw.incrementAndGet(client);
        }
    }

    private ServiceListener listener(int client) {
        return event -> {
            long now = PropagationListener.now();
            ServiceInstance instance;
            if (event instanceof InstanceUpdated updated) {
                instance = updated.instance();
            } else if (event instanceof InstanceRegistered registered) {
                instance = registered.instance();
            } else {
                if (event instanceof ServiceResynced) {
                    resyncs.incrementAndGet();
                }
                return;
            }
            String seq = instance.metadata("seq");
            String stamp = instance.metadata("t");
            if (seq != null && stamp != null && Long.parseLong(seq) >= warmup) {
                record(lodestar, lodestarTimes, Long.parseLong(seq), Long.parseLong(stamp), now);
                heardLodestar.incrementAndGet(client);
            }
        };
    }

    /** Live threads by name with digits replaced by {@code N}, e.g. {@code lodestar-view-N=12;...}: who owns them. */
    private static String threadsByName() {
        Map<String, Integer> byName = new TreeMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            byName.merge(thread.getName().replaceAll("[0-9]+", "N"), 1, Integer::sum);
        }
        StringBuilder line = new StringBuilder();
        byName.forEach((name, count) -> line.append(line.isEmpty() ? "" : ";").append(name.replace(' ', '_'))
                .append('=').append(count));
        return line.toString();
    }

    private static void record(Histogram histogram, Map<Long, EventTimes> events, long seq, long written, long heard) {
        long micros = Math.min(HIGHEST_MICROS, Math.max(0, (heard - written) / 1000));
        histogram.recordValue(micros);
        events.computeIfAbsent(seq, s -> new EventTimes(written / 1000)).slowestMicros().accumulate(micros);
    }

    /** {@code seq:writtenMicros:slowestMicros} per measured event, in sequence order, comma-separated. */
    private static String eventTimes(Map<Long, EventTimes> events) {
        StringBuilder line = new StringBuilder();
        new TreeMap<>(events).forEach((seq, times) -> line.append(line.isEmpty() ? "" : ",").append(seq).append(':')
                .append(times.writtenMicros()).append(':').append(times.slowestMicros().get()));
        return line.isEmpty() ? "-" : line.toString();
    }

    /** Heap used after a full GC (bytes) and live threads. */
    private static long[] heapAndThreads() {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return new long[]{ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(),
                ManagementFactory.getThreadMXBean().getThreadCount()};
    }

    private void report(int lodestarEvents, int rawEvents) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPORT_WAIT_MS);
        while (System.nanoTime() < deadline
                && (min(heardLodestar) < lodestarEvents || min(heardRaw) < rawEvents)) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        OUT.printf("HIST lodestar %s%n", encode(lodestar));
        OUT.printf("HIST raw %s%n", encode(raw));
        OUT.printf("EVENTS lodestar %s%n", eventTimes(lodestarTimes));
        OUT.printf("EVENTS raw %s%n", eventTimes(rawTimes));
        OUT.printf("COUNTS %d %d %d %d %d %d%n", sum(heardLodestar), min(heardLodestar), sum(heardRaw),
                min(heardRaw), resyncs.get(), heardLodestar.length());
    }

    private void fresh(List<LodestarClient> clients, String epoch, long since, long timeoutMs, String service) {
        long[] freshAt = new long[clients.size()];
        int left = clients.size();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (left > 0 && System.nanoTime() < deadline) {
            for (int c = 0; c < clients.size(); c++) {
                if (freshAt[c] != 0) {
                    continue;
                }
                LodestarClient client = clients.get(c);
                if (!client.discovery().status().stale() && client.discovery().getInstances(service).stream()
                        .anyMatch(i -> epoch.equals(i.metadata("epoch")))) {
                    freshAt[c] = PropagationListener.now();
                    left--;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        StringBuilder line = new StringBuilder("FRESHNESS ").append(left);
        for (long at : freshAt) {
            if (at != 0) {
                line.append(' ').append((at - since) / 1_000_000);
            }
        }
        OUT.println(line);
    }

    private static int min(AtomicIntegerArray counts) {
        int min = Integer.MAX_VALUE;
        for (int i = 0; i < counts.length(); i++) {
            min = Math.min(min, counts.get(i));
        }
        return counts.length() == 0 ? 0 : min;
    }

    private static long sum(AtomicIntegerArray counts) {
        long sum = 0;
        for (int i = 0; i < counts.length(); i++) {
            sum += counts.get(i);
        }
        return sum;
    }

    static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int size = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), size));
    }

    static Histogram decode(String base64) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
        } catch (DataFormatException e) {
            throw new IllegalStateException("A fleet JVM sent a histogram that does not decode", e);
        }
    }
}
