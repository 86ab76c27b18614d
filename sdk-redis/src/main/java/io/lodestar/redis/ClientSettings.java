package io.lodestar.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.Violation;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a {@link RedisBackend} talks to Redis: the Lettuce client built from the options (URI, cluster seeds, timeouts,
 * TLS, protocol), the resources a client that brings none gets, and how a connection failure is described.
 */
final class ClientSettings {
    /**
     * RESP3, never RESP2: over RESP2 a shard message that arrives while an SSUBSCRIBE or SUNSUBSCRIBE waits for
     * its confirmation is taken by Lettuce (7.x) for that confirmation, so the event is lost and the subscribe
     * completes with the message's text. RESP3 sends messages out of band (push), which Lettuce routes apart from
     * replies. Sharded PubSub needs Redis 7, which always speaks RESP3, and a RESP3 subscriber is still a
     * {@code pubsub} client to Redis (CLIENT LIST TYPE pubsub, pubsub output-buffer limits).
     */
    static final ProtocolVersion PROTOCOL = ProtocolVersion.RESP3;
    /** The tick of the timer of {@link #defaultResources()}. */
    static final long TIMER_TICK_MS = 10;
    private static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(500);
    /**
     * Cluster: the most commands one connection holds (queued while it reconnects, or sent and not answered yet), so
     * an outage cannot fill the heap; each still fails after the command timeout. Above Lettuce's array-queue
     * threshold (200,000) on purpose: up to it Lettuce allocates two arrays of this length per connection up front
     * (at 10,000, 80 KB a connection: half of a cluster client's heap), above it queues that grow as they fill.
     */
    private static final int CLUSTER_REQUEST_QUEUE_BOUND = 250_000;
    /**
     * The oldest Lettuce Lodestar runs on (major, minor): 6.8, what the Micronaut platform BOM brings (its tests run
     * on it, see docs/micronaut.md). Below it nothing is tested, and a missing method would fail deep inside at some
     * later moment (the first shard message, the first failover) instead of at start-up.
     */
    static final int[] MINIMUM_LETTUCE = {6, 8};
    /** The major and minor version that begin an {@code Implementation-Version} such as {@code 7.7.0.RELEASE/1}. */
    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)");
    /** Lettuce's Maven metadata, kept in its jar and in a shaded jar that contains it. */
    private static final String LETTUCE_METADATA = "META-INF/maven/io.lettuce/lettuce-core/pom.properties";

    private ClientSettings() {
    }

    /**
     * Fails when the Lettuce on the classpath is older than {@link #MINIMUM_LETTUCE}; a Lettuce that does not say its
     * version (repackaged without its metadata and manifest) is taken as it is.
     *
     * @param implementationVersion Lettuce's version ({@link #lettuceVersion}), e.g. {@code 7.7.0.RELEASE}
     * @throws InvalidArgumentException naming {@code lettuce-core}, the version found and the one needed
     */
    static void requireSupportedLettuce(String implementationVersion) {
        if (implementationVersion == null) {
            return;
        }
        Matcher version = MAJOR_MINOR.matcher(implementationVersion);
        if (!version.find()) {
            return;
        }
        int major = Integer.parseInt(version.group(1));
        int minor = Integer.parseInt(version.group(2));
        if (major < MINIMUM_LETTUCE[0] || major == MINIMUM_LETTUCE[0] && minor < MINIMUM_LETTUCE[1]) {
            throw new InvalidArgumentException(new Violation("lettuce-core on the classpath", implementationVersion,
                    MINIMUM_LETTUCE[0] + "." + MINIMUM_LETTUCE[1] + " or newer (a framework's BOM may have moved it"
                            + " down: pin io.lettuce:lettuce-core to a supported version in the build)"));
        }
    }

    /**
     * The version of the Lettuce on the classpath: from its Maven metadata, which a shaded ("uber") jar keeps per
     * artifact, else from its manifest when the manifest is Lettuce's own; null when neither says. Not the manifest
     * alone: a shaded jar's manifest is the application's, and its {@code Implementation-Version} (say
     * {@code 0.1.0-SNAPSHOT}) would be taken for Lettuce's.
     */
    static String lettuceVersion() {
        try (InputStream metadata = RedisClient.class.getClassLoader() == null ? null
                : RedisClient.class.getClassLoader().getResourceAsStream(LETTUCE_METADATA)) {
            if (metadata != null) {
                Properties properties = new Properties();
                properties.load(metadata);
                String version = properties.getProperty("version");
                if (version != null) {
                    return version;
                }
            }
        } catch (IOException unreadable) {
            // fall back to the manifest
        }
        Package lettuce = RedisClient.class.getPackage();
        return lettuce != null && "Lettuce".equals(lettuce.getImplementationTitle())
                ? lettuce.getImplementationVersion() : null;
    }

    /** Whether the URI names a cluster ({@code redis-cluster://} or {@code rediss-cluster://}). */
    static boolean isCluster(String uri) {
        return uri.toLowerCase(Locale.ROOT).matches("rediss?-cluster://.*");
    }

    /**
     * The Lettuce client for the options (nothing connected yet).
     *
     * @throws InvalidArgumentException naming {@code redisUri} when Lettuce cannot parse it, or {@code lettuce-core}
     *                                  when it is older than {@link #MINIMUM_LETTUCE}
     * @throws UnavailableException     when Lettuce cannot create the client for another reason
     */
    static AbstractRedisClient create(LodestarOptions options, ClientResources resources) {
        requireSupportedLettuce(lettuceVersion());
        String where = options.redactedRedisUri();
        Duration timeout = options.commandTimeout();
        String uri = options.redisUri();
        SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        SslOptions ssl = options.tlsTrustedCertificates()
                .map(pem -> SslOptions.builder().jdkSslProvider().trustManager(pem.toFile()).build())
                .orElseGet(SslOptions::create);
        try {
            if (isCluster(uri)) {
                List<RedisURI> seeds = clusterSeeds(uri, options.clientName());
                seeds.forEach(seed -> seed.setTimeout(timeout)); // bounds each node's handshake, as standalone
                RedisClusterClient clusterClient = new LazySyncRedisClusterClient(resources, seeds);
                // Node connections open lazily, so rejecting commands while "not connected" would reject the first
                // command to every node: a cluster queues them instead, bounded by the command timeout.
                clusterClient.setOptions(ClusterClientOptions.builder()
                        .socketOptions(socket).timeoutOptions(timeouts).protocolVersion(PROTOCOL).sslOptions(ssl)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                        .requestQueueSize(CLUSTER_REQUEST_QUEUE_BOUND)
                        .nodeFilter(ClientSettings::stillInTheCluster)
                        // Lettuce's adaptive triggers (redirects, reconnect trouble) are on by default; its periodic
                        // refresh stays off: it opens a connection to every node each time, and a client's
                        // reconcile looks at the topology over a connection it has instead (RedisBackend)
                        .build());
                return clusterClient;
            }
            RedisClient standalone = new LazySyncRedisClient(resources, standaloneUri(options));
            standalone.setOptions(ClientOptions.builder()
                    .socketOptions(socket).timeoutOptions(timeouts).protocolVersion(PROTOCOL).sslOptions(ssl)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .build());
            return standalone;
        } catch (IllegalArgumentException e) {
            throw new InvalidArgumentException(new Violation("redisUri", where,
                    "a valid Redis URI (" + LodestarOptions.redact(String.valueOf(e.getMessage())) + ")"));
        } catch (RuntimeException e) {
            throw new UnavailableException("Cannot connect to Redis at " + where + ": " + describe(e), e);
        }
    }

    /**
     * The URI of a standalone or Sentinel client's connections: the options' URI, named after the client unless it
     * names itself, with the command timeout bounding the handshake (HELLO, AUTH: a frozen Redis accepts, then
     * hangs).
     *
     * @throws IllegalArgumentException when the URI is not one Lettuce takes
     */
    static RedisURI standaloneUri(LodestarOptions options) {
        RedisURI redisUri = RedisURI.create(options.redisUri());
        if (redisUri.getClientName() == null) {
            redisUri.setClientName(options.clientName());
        }
        redisUri.setTimeout(options.commandTimeout());
        return redisUri;
    }

    /**
     * Cluster: whether a node stays in the client's topology. A failed node without slots (a killed master once its
     * replica was promoted) leaves it: Lettuce then closes the connection to it, and a cluster node connection that
     * closes while disconnected hands the commands waiting in its queue (never sent: written while the node was
     * unreachable) back to the cluster connection, which sends them to the slot's new owner. Kept, such a node's
     * connection held them until the command timeout, whatever the topology said. A failed master that still holds
     * slots stays (no replica took them yet), and so does a node that comes back: it loses the flag.
     */
    private static boolean stillInTheCluster(RedisClusterNode node) {
        return !(node.is(RedisClusterNode.NodeFlag.FAIL) && node.hasNoSlots());
    }

    /** Turns {@code redis-cluster://[user:pass@]h1:p1,h2:p2[?query]} into one seed URI per host. */
    static List<RedisURI> clusterSeeds(String uri, String clientName) {
        int schemeEnd = uri.indexOf("://");
        String scheme = uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT).startsWith("rediss") ? "rediss" : "redis";
        String rest = uri.substring(schemeEnd + 3);
        String userInfo = "";
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            userInfo = rest.substring(0, at + 1);
            rest = rest.substring(at + 1);
        }
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q);
            rest = rest.substring(0, q);
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String hostPort : rest.split(",")) {
            if (!hostPort.isBlank()) {
                RedisURI seed = RedisURI.create(scheme + "://" + userInfo + hostPort.trim() + query);
                if (seed.getClientName() == null) {
                    seed.setClientName(clientName);
                }
                seeds.add(seed);
            }
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no host:port in the cluster URI");
        }
        return seeds;
    }

    /**
     * Lettuce resources for a client that brings none: the reconnect delay doubles from 1 ms as Lettuce's does,
     * but stops at 500 ms instead of 30 s (after an outage of 20 s Lettuce's default waits up to 16 s more, while
     * writers fail and leases run out), each delay drawn between half the step and the step, so a fleet that lost
     * Redis at the same instant does not reconnect in lock step. (Lettuce's {@code fullJitter} does that; its
     * {@code equalJitter} draws below an uncapped step and then caps it, so after a few seconds every delay is
     * exactly the cap.) Lettuce waits out every reconnect delay, even one of 0, on its resources' timer, whose own
     * wheel ticks every 100 ms: a reconnect came 0-100 ms after the drop whatever the delay said. This timer ticks
     * every {@link #TIMER_TICK_MS} ms (leases wait on it too); whoever closes the resources stops it (Lettuce stops
     * only a timer it made). A caller's own resources are used as they are.
     */
    static ClientResources.Builder defaultResources() {
        return ClientResources.builder().reconnectDelay(Delay.fullJitter(Duration.ZERO, MAX_RECONNECT_DELAY, 1,
                TimeUnit.MILLISECONDS)).timer(new HashedWheelTimer(new DefaultThreadFactory("lodestar-timer", true),
                TIMER_TICK_MS, TimeUnit.MILLISECONDS));
    }

    /**
     * Shuts down resources a backend created, and their timer (see {@link #defaultResources()}: ours, so Lettuce
     * leaves it running) once their event loops have stopped, not before: a connection Redis drops while the client
     * closes has its watchdog ask the timer for a reconnect from an event loop, which a stopped timer refuses with a
     * WARN ("cannot be started once stopped"). Not waited for: a close may run on one of those event loops.
     */
    static void shutdownOwn(ClientResources resources) {
        resources.shutdown(0, 2, TimeUnit.SECONDS).addListener(shutDown -> resources.timer().stop());
    }

    /**
     * Lettuce's message plus the root cause's, which is where the reason is (refused, TLS handshake, WRONGPASS),
     * with any credentials removed.
     */
    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = String.valueOf(failure.getMessage());
        if (root != failure && root.getMessage() != null && !message.contains(root.getMessage())) {
            message += " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return LodestarOptions.redact(message);
    }

    static boolean isAccessDenied(String reason) {
        return reason.contains("WRONGPASS") || reason.contains("NOAUTH") || reason.contains("NOPERM");
    }
}
