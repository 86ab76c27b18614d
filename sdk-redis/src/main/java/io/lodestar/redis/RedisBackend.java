package io.lodestar.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lodestar.core.AccessDeniedException;
import io.lodestar.core.ClientClosedException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.Violation;
import io.lodestar.core.UnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The Redis connections of one client: a command connection and a PubSub connection, for standalone, Sentinel
 * and Cluster alike. Commands fail fast while disconnected (no silent queueing), Lettuce reconnects by itself,
 * and every (re)connect and disconnect is reported to the listeners so views can resync and say they are stale.
 *
 * <p>Events use sharded PubSub (SPUBLISH/SSUBSCRIBE). On a cluster a shard channel must be subscribed at the
 * node that owns its slot, so {@link #subscribe(String)} routes by slot, without blocking on a node that is down.
 * A subscription follows its slot: when Redis drops it ({@code sunsubscribe} after a failover or a slot
 * migration) or the node carrying it is lost, the channel is subscribed again at the slot's owner after a
 * topology refresh, retried with backoff until that succeeds, and then reported to the
 * {@linkplain #onResubscribed resubscribe handler} so the view re-reads what it may have missed.
 *
 * <p>Only the loss of a connection that is open for commands or subscriptions counts as a disconnect: a
 * connection closed on purpose (the cluster topology refresh opens and closes probe connections every 30 s)
 * makes no view stale and triggers no resync.
 *
 * <p>A Redis that stops answering without closing anything (a frozen process, a partition that drops packets)
 * closes no connection, and TCP keepalive cannot tell: a stopped process's kernel still acknowledges every packet.
 * So each connection is PINGed (see {@link Heartbeat}; on a cluster each node's PubSub connection, which carries
 * that node's subscriptions); one that leaves Redis silent for the command timeout counts as lost, exactly as a
 * disconnect, until Redis answers again. Connects and handshakes are bounded by the command timeout too (Lettuce's
 * handshake waits for the URI's timeout, 60 s by default).
 *
 * <p>When Redis cannot be reached at start-up, creation fails, unless a config snapshot directory is configured:
 * then the backend starts offline (every command fails at once, as while disconnected) and keeps connecting in
 * the background, so an application can start with its last known config.
 */
final class RedisBackend implements SyncedView.Transport, AutoCloseable {
    /**
     * Hears connection changes of every connection of this backend, on Lettuce's I/O thread (hand over, never
     * block). A connection closed on purpose (ours on close, a topology-refresh probe) is no disconnect.
     */
    interface ConnectionListener {
        void connected(String node);

        void disconnected(String node);
    }

    /**
     * The connection state of one node, as this backend saw it; {@code problem} says why a connection that is open
     * counts as lost ("no answer from 127.0.0.1:6379 for 5 s"), else null.
     */
    record NodeState(String address, boolean connected, Instant since, String problem) {
        NodeState(String address, boolean connected, Instant since) {
            this(address, connected, since, null);
        }
    }

    /**
     * RESP3, never RESP2: over RESP2 a shard message that arrives while an SSUBSCRIBE or SUNSUBSCRIBE waits for
     * its confirmation is taken by Lettuce (7.x) for that confirmation, so the event is lost and the subscribe
     * completes with the message's text. RESP3 sends messages out of band (push), which Lettuce routes apart from
     * replies. Sharded PubSub needs Redis 7, which always speaks RESP3, and a RESP3 subscriber is still a
     * {@code pubsub} client to Redis (CLIENT LIST TYPE pubsub, pubsub output-buffer limits).
     */
    private static final ProtocolVersion PROTOCOL = ProtocolVersion.RESP3;
    private static final Logger log = LoggerFactory.getLogger(RedisBackend.class);
    private static final long MAX_CONNECT_BACKOFF_MS = 2_000;
    private static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(500);
    /** The tick of the timer of {@link #defaultResources()}. */
    static final long TIMER_TICK_MS = 10;
    /** At most one topology refresh per this many ms because commands failed to reach a node. */
    private static final long FAILURE_REFRESH_INTERVAL_MS = 250;
    private final AtomicLong lastFailureRefresh = new AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(1));
    /** Re-homing orphaned subscriptions: the first try waits this long, so a burst of drops is one refresh. */
    private static final long REHOME_FIRST_DELAY_MS = 10;
    /**
     * Then every 250 ms (a topology refresh each) for about 15 s, which covers a replica's promotion (node timeout
     * plus an election) with room for the 1 s goal; after that every 2 s (a master without a replica, down for
     * good, should not cost four refreshes a second forever).
     */
    private static final long REHOME_INTERVAL_MS = 250;
    private static final int REHOME_FAST_ATTEMPTS = 60;
    private static final long REHOME_SLOW_INTERVAL_MS = 2_000;
    /** How long a topology that still names the node that dropped a subscription is taken for an old one. */
    private static final long DROP_MEMORY_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final AbstractRedisClient client;
    // Null (commands: a stand-in that fails every command) until the first connection succeeds, then set once.
    private volatile StatefulConnection<String, String> commandConnection;
    private volatile RedisClusterAsyncCommands<String, String> commands;
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    private volatile Thread connector;
    private volatile boolean closed;
    private final boolean cluster;
    private final String where;
    private final String namespace;
    private final Duration timeout;
    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    private volatile BiConsumer<String, String> messageHandler = (channel, message) -> { };
    private volatile Consumer<String> resubscribeHandler = channel -> { };
    /** Cluster: the channels the views follow, and the node each is subscribed at once Redis confirmed it. */
    private final Set<String> wanted = ConcurrentHashMap.newKeySet();
    private final Map<String, String> subscribedAt = new ConcurrentHashMap<>();
    /** Cluster: the PubSub connection per node id, and those lost (reconnecting) right now. */
    private final Map<String, StatefulRedisPubSubConnection<String, String>> nodeConnections =
            new ConcurrentHashMap<>();
    private final Set<RedisChannelHandler<?, ?>> lost = ConcurrentHashMap.newKeySet();
    /** Cluster: channels whose subscription was dropped or lost, waiting to be subscribed at their owner. */
    private final Set<String> orphans = ConcurrentHashMap.newKeySet();
    /** Cluster: unsubscribes of ours whose confirmation has not come yet, per channel. */
    private final Map<String, Integer> unsubscribing = new ConcurrentHashMap<>();
    /** Cluster: the node that last dropped a channel's subscription, and when (see {@link #subscribeAtOwner}). */
    private final Map<String, Drop> droppedBy = new ConcurrentHashMap<>();
    private final AtomicBoolean rehoming = new AtomicBoolean();
    /** A node came back during a re-homing round: the next round starts at once, not after the retry interval. */
    private volatile boolean rehomeSoon;
    /** A re-homing round is scheduled and has not started (see {@link #rehomeNow}). */
    private final AtomicBoolean rehomeWaiting = new AtomicBoolean();

    /**
     * Standalone: the channels Redis confirmed subscribed on the PubSub connection since it last connected (see
     * {@link #subscribe(List)}); emptied when it drops, a channel taken out before it is unsubscribed.
     */
    private final Set<String> subscribedHere = ConcurrentHashMap.newKeySet();
    /**
     * Standalone: completes when Redis has run Lettuce's own re-subscription after the PubSub connection's last
     * reconnect (the reply of a PING sent behind it), so {@link #subscribedHere} holds every channel it renewed.
     */
    private volatile CompletableFuture<?> resubscribed = CompletableFuture.completedFuture(null);
    /** SSUBSCRIBE commands sent (tests). */
    final LongAdder subscribeCommands = new LongAdder();
    /** Finds connections Redis stopped answering on (on a cluster, the node PubSub connections). */
    private final Heartbeat heartbeat;

    /** Null when the resources are the caller's: whoever creates a resource closes it. */
    private final ClientResources ownResources;
    /**
     * Every connection (handler) of this client that is not closed, with its node and state; a lost one stays,
     * disconnected, while Lettuce reconnects it.
     */
    private final Map<RedisChannelHandler<?, ?>, NodeState> connections = new ConcurrentHashMap<>();
    /** What this client saw of Redis being unreachable, for the sweep's outage rule (see Sweeper). */
    private final OutageEvidence outages = new OutageEvidence();
    /** Hears Lettuce's failed reconnects (see {@link #reconnectFailed()}); disposed on close. */
    private final Disposable reconnectFailures;

    private RedisBackend(LodestarOptions options, ClientResources resources, boolean ownsResources) {
        this.ownResources = ownsResources ? resources : null;
        this.where = options.redactedRedisUri();
        this.namespace = options.namespace().name();
        this.timeout = options.commandTimeout();
        String uri = options.redisUri();
        this.cluster = uri.toLowerCase(Locale.ROOT).matches("rediss?-cluster://.*");
        SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        SslOptions ssl = options.tlsTrustedCertificates()
                .map(pem -> SslOptions.builder().jdkSslProvider().trustManager(pem.toFile()).build())
                .orElseGet(SslOptions::create);
        try {
            if (cluster) {
                List<RedisURI> seeds = clusterSeeds(uri, options.clientName());
                seeds.forEach(seed -> seed.setTimeout(timeout)); // bounds each node's handshake, as standalone
                RedisClusterClient clusterClient = RedisClusterClient.create(resources, seeds);
                // Node connections open lazily, so rejecting commands while "not connected" would reject the first
                // command to every node: a cluster queues them instead, bounded by the command timeout.
                clusterClient.setOptions(ClusterClientOptions.builder()
                        .socketOptions(socket).timeoutOptions(timeouts).protocolVersion(PROTOCOL).sslOptions(ssl)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                        .requestQueueSize(10_000)
                        .nodeFilter(RedisBackend::stillInTheCluster)
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enablePeriodicRefresh(Duration.ofSeconds(30)) // adaptive triggers are on by default
                                .build())
                        .build());
                this.client = clusterClient;
            } else {
                RedisURI redisUri = RedisURI.create(uri);
                if (redisUri.getClientName() == null) {
                    redisUri.setClientName(options.clientName());
                }
                redisUri.setTimeout(timeout); // bounds the handshake (HELLO, AUTH): a frozen Redis accepts, then hangs
                RedisClient standalone = RedisClient.create(resources, redisUri);
                standalone.setOptions(ClientOptions.builder()
                        .socketOptions(socket).timeoutOptions(timeouts).protocolVersion(PROTOCOL).sslOptions(ssl)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .build());
                this.client = standalone;
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidArgumentException(new Violation("redisUri", options.redactedRedisUri(),
                    "a valid Redis URI (" + LodestarOptions.redact(String.valueOf(e.getMessage())) + ")"));
        } catch (RuntimeException e) {
            throw new UnavailableException("Cannot connect to Redis at " + where + ": " + describe(e), e);
        }
        client.addListener(new StateListener());
        this.reconnectFailures = client.getResources().eventBus().get()
                .filter(ReconnectFailedEvent.class::isInstance)
                // fails only when the resources' event executors are shut down (closing): nothing left to hear
                .subscribe(event -> reconnectFailed(), stopped -> log.debug("No longer hearing failed reconnects of"
                        + " {}: {}", where, stopped.toString()));
        this.heartbeat = new Heartbeat();
        this.commands = offlineCommands();
        try {
            openOnceMoreIfCutShort();
        } catch (RuntimeException e) {
            String reason = describe(e);
            if (isAccessDenied(reason)) {
                reconnectFailures.dispose();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                throw new AccessDeniedException("Redis at " + where + " refused the credentials of the URI (check"
                        + " the user name and password; see docs/redis.md for the ACL Lodestar needs): " + reason, e);
            }
            if (options.startupMode() == StartupMode.FAIL_FAST) {
                reconnectFailures.dispose();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                throw new UnavailableException("Cannot connect to Redis at " + where + ": " + reason
                        + " (set startupMode OFFLINE to start without Redis and connect in the background)", e);
            }
            log.warn("Cannot connect to Redis at {} ({}); starting offline: reads serve what the snapshot directory"
                    + " holds, writes fail until a connection succeeds (retried in the background)", where, reason);
            outages.seen(System.nanoTime());
            connectInBackground();
        }
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
        return !(node.is(RedisClusterNode.NodeFlag.FAIL) && node.getSlots().isEmpty());
    }

    /**
     * Opens the connections; when the server closed one during the handshake, tries once more. Lettuce can report a
     * refused AUTH as "Connection closed prematurely" when the close wins over the error reply, which would make a
     * wrong password look like an unreachable server; the second attempt then tells which it is.
     */
    private void openOnceMoreIfCutShort() {
        try {
            open();
        } catch (RuntimeException e) {
            if (!describe(e).contains("closed prematurely")) {
                throw e;
            }
            log.debug("Connecting to Redis at {} was cut short ({}); trying once more", where, describe(e));
            open();
        }
    }

    private static boolean isAccessDenied(String reason) {
        return reason.contains("WRONGPASS") || reason.contains("NOAUTH") || reason.contains("NOPERM");
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
     * Lettuce's message plus the root cause's, which is where the reason is (refused, TLS handshake, WRONGPASS),
     * with any credentials removed.
     */
    private static String describe(Throwable failure) {
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

    /** Opens the command and PubSub connections; blocking, bounded by the connect timeout. */
    private void open() {
        StatefulConnection<String, String> connection;
        RedisClusterAsyncCommands<String, String> async;
        StatefulRedisPubSubConnection<String, String> subscriber;
        if (client instanceof RedisClusterClient clusterClient) {
            StatefulRedisClusterConnection<String, String> clusterConnection = clusterClient.connect(StringCodec.UTF8);
            connection = clusterConnection;
            async = clusterConnection.async();
            try {
                StatefulRedisClusterPubSubConnection<String, String> clusterPubSub =
                        clusterClient.connectPubSub(StringCodec.UTF8);
                clusterPubSub.setNodeMessagePropagation(true);
                clusterPubSub.addListener(new RedisClusterPubSubAdapter<>() {
                    @Override
                    public void smessage(RedisClusterNode node, String channel, String message) {
                        messageHandler.accept(channel, message);
                    }

                    @Override
                    public void sunsubscribed(RedisClusterNode node, String channel, long count) {
                        dropped(node, channel);
                    }
                });
                subscriber = clusterPubSub;
            } catch (RuntimeException e) {
                connection.close();
                throw e;
            }
        } else {
            RedisClient standalone = (RedisClient) client;
            var standaloneConnection = standalone.connect(StringCodec.UTF8);
            connection = standaloneConnection;
            async = standaloneConnection.async();
            try {
                subscriber = standalone.connectPubSub(StringCodec.UTF8);
                subscriber.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void smessage(String channel, String message) {
                        messageHandler.accept(channel, message);
                    }

                    @Override
                    public void ssubscribed(String channel, long count) {
                        subscribedHere.add(channel);
                    }
                });
            } catch (RuntimeException e) {
                connection.close();
                throw e;
            }
        }
        synchronized (this) {
            if (closed) {
                subscriber.close();
                connection.close();
                return;
            }
            this.commandConnection = connection;
            this.pubSub = subscriber;
            this.commands = async;
        }
        heartbeat.start();
    }

    /** Offline start: connects with backoff until it succeeds or the backend is closed; then reports connected. */
    private void connectInBackground() {
        Thread thread = new Thread(() -> {
            long backoff = 100;
            while (!closed && commandConnection == null) {
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException e) {
                    return;
                }
                backoff = Math.min(MAX_CONNECT_BACKOFF_MS, backoff * 2);
                try {
                    open();
                } catch (RuntimeException e) {
                    log.debug("Redis at {} still cannot be reached: {}", where, e.toString());
                }
            }
            if (!closed && commandConnection != null) {
                log.info("Connected to Redis at {}", where);
                listeners.forEach(listener -> listener.connected(where));
            }
        }, "lodestar-connect");
        thread.setDaemon(true);
        connector = thread;
        thread.start();
    }

    /** Stands in for the command connection until the first connection succeeds: every command fails at once. */
    @SuppressWarnings("unchecked")
    private RedisClusterAsyncCommands<String, String> offlineCommands() {
        return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(
                RedisClusterAsyncCommands.class.getClassLoader(), new Class<?>[] {RedisClusterAsyncCommands.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "equals" -> proxy == args[0];
                            case "hashCode" -> System.identityHashCode(proxy);
                            default -> "OfflineCommands[" + where + "]";
                        };
                    }
                    RedisConnectionException failure = new RedisConnectionException("not connected: Redis could not"
                            + " be reached since this client started (retrying in the background)");
                    if (method.getReturnType().isAssignableFrom(FailedFuture.class)) {
                        return new FailedFuture<>(failure);
                    }
                    if (method.getReturnType() == void.class) {
                        return null;
                    }
                    throw failure;
                });
    }

    /** A command that failed without reaching Redis. */
    private static final class FailedFuture<T> extends CompletableFuture<T> implements RedisFuture<T> {
        private final String error;

        FailedFuture(Throwable failure) {
            this.error = failure.getMessage();
            completeExceptionally(failure);
        }

        @Override
        public String getError() {
            return error;
        }

        @Override
        public boolean await(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /**
     * @param options       the options
     * @param resources     the Lettuce resources to use
     * @param ownsResources whether this backend created them, and so shuts them down on close (also when creation
     *                      fails); a caller's resources are never shut down
     */
    static RedisBackend connect(LodestarOptions options, ClientResources resources, boolean ownsResources) {
        try {
            return new RedisBackend(options, resources, ownsResources);
        } catch (RuntimeException e) {
            if (ownsResources) {
                shutdownOwn(resources);
            }
            throw e;
        }
    }

    /** Shuts down resources this backend created, with their timer (see {@link #defaultResources()}). */
    private static void shutdownOwn(ClientResources resources) {
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        resources.timer().stop(); // ours, so Lettuce leaves it running
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

    /** @throws ClientClosedException once closed: every operation starts here, so none runs after close */
    RedisClusterAsyncCommands<String, String> commands() {
        if (closed) {
            throw closedException();
        }
        return commands;
    }

    @Override
    public ClientClosedException closedException() {
        return new ClientClosedException(namespace, where);
    }

    /** Reads a revision counter (0 when it was never written; a {@link Replies.Corrupt} naming it when corrupt). */
    CompletionStage<Long> counter(String key) {
        return commands.get(key).thenApply(value -> Replies.counter(key, value));
    }

    @Override
    public String where() {
        return where;
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    /**
     * Lettuce's timer of this client's resources (a hashed wheel: {@link #TIMER_TICK_MS} ms ticks for the resources
     * a client creates, Lettuce's default 100 ms for a caller's unless they say otherwise): stopped with the
     * resources, so by this client's close when they are its own, else by their owner.
     */
    io.netty.util.Timer timer() {
        return client.getResources().timer();
    }

    /**
     * Whether events can flow: standalone, both connections are up; on a cluster, every subscription is in place
     * at a reachable node (the cluster connections' default node says nothing about the others, and commands
     * route per node anyway).
     */
    @Override
    public boolean isConnected() {
        StatefulConnection<String, String> connection = commandConnection;
        StatefulRedisPubSubConnection<String, String> subscriber = pubSub;
        if (connection == null || subscriber == null) {
            return false;
        }
        return cluster ? orphans.isEmpty() : connection.isOpen() && subscriber.isOpen() && !heartbeat.silent();
    }

    /** What this client saw of Redis being unreachable (renewals add to it; see Sweeper). */
    OutageEvidence outages() {
        return outages;
    }

    /**
     * Lettuce could not reconnect a lost connection: Redis (on a cluster, a node that serves slots) cannot be reached,
     * since this client lost the connection it lost first. A connection that comes back at its first attempt (one
     * closed by Redis, {@code CLIENT KILL}, a PubSub connection cut off for its output buffer) is no outage: nothing
     * kept an owner from renewing. With a caller's shared resources, another client's failed reconnect counts too
     * while one of this client's connections is lost: harmless, an outage only makes the sweep spare more.
     */
    private void reconnectFailed() {
        Set<String> serving = cluster ? slotOwners() : null;
        Instant since = null;
        for (NodeState state : connections.values()) {
            if (!state.connected() && state.since() != null
                    && (serving == null || serving.contains(state.address()))
                    && (since == null || state.since().isBefore(since))) {
                since = state.since();
            }
        }
        if (since != null) {
            outages.seen(System.nanoTime() - Duration.between(since, Instant.now()).toNanos());
            // A node serving slots is unreachable: its replica may be promoted any moment. Commands for its slots
            // wait in the lost connection's queue (up to the command timeout) until the topology names the new
            // master, and a client with no subscription there has nothing else that refreshes it (Lettuce's own
            // triggers are rate-limited to one per 30 s): refresh with every failed reconnect (about every 0.5 s,
            // at most every 250 ms), so the promotion is seen within about half a second.
            refreshSoon();
        }
    }

    void onMessage(BiConsumer<String, String> handler) {
        this.messageHandler = handler;
    }

    /** Adds a listener; one added while not connected (e.g. after an offline start) hears that at once. */
    void addConnectionListener(ConnectionListener listener) {
        listeners.add(listener);
        if (!isConnected()) {
            listener.disconnected(where);
        }
    }

    void removeConnectionListener(ConnectionListener listener) {
        listeners.remove(listener);
    }

    /**
     * The nodes this client has connections to (or lost them to), by address: connected when any of its open
     * connections is. On a cluster only the nodes that serve slots now count: a master that failed and lost its
     * slots to its replica no longer matters, though Lettuce may still try to reach it. Before the first
     * connection succeeds, the configured address, disconnected.
     */
    List<NodeState> nodes() {
        Set<String> serving = cluster ? slotOwners() : null;
        Map<String, NodeState> byAddress = new TreeMap<>();
        for (NodeState state : connections.values()) {
            if (serving == null || serving.contains(state.address())) {
                // a connection Redis left silent speaks for its node: the others on it are as stuck
                byAddress.merge(state.address(), state, (a, b) -> a.problem() != null ? a
                        : b.problem() != null ? b : a.connected() ? a : b);
            }
        }
        if (byAddress.isEmpty()) {
            return List.of(new NodeState(where, false, null));
        }
        return List.copyOf(byAddress.values());
    }

    /**
     * The {@code host:port} of every cluster node that serves slots, as the client's topology has it, those the
     * cluster marked failed included: a failed master holds its slots until a replica is promoted (or it answers
     * again), and is the outage for them until then.
     */
    private Set<String> slotOwners() {
        Set<String> owners = new java.util.HashSet<>();
        for (RedisClusterNode node : ((RedisClusterClient) client).getPartitions()) {
            if (!node.getSlots().isEmpty()) {
                owners.add(node.getUri().getHost() + ":" + node.getUri().getPort());
            }
        }
        return owners;
    }

    /** Hears the channels subscribed again after Redis dropped them or their node was lost (any thread). */
    void onResubscribed(Consumer<String> handler) {
        this.resubscribeHandler = handler;
    }

    /**
     * Subscribes a shard channel (at the node owning its slot on a cluster, and from then on wherever its slot
     * goes); completes when Redis confirmed. Never blocks: a node that is down fails the stage.
     */
    @Override
    public CompletionStage<Void> subscribe(String channel) {
        return subscribe(List.of(channel));
    }

    /**
     * Subscribes shard channels, each followed wherever its slot goes as {@link #subscribe(String)} does: one
     * SSUBSCRIBE per cluster slot (standalone: one for all), each followed by a PING on the same connection;
     * completes when every PING has its reply.
     *
     * <p>Why the PING: Lettuce (7.7, RESP3) completes an SSUBSCRIBE on the first {@code ssubscribe} confirmation it
     * sees while that command is the oldest one waiting, whichever channel (and command) the confirmation is for, so
     * an SSUBSCRIBE of many channels completes on its first one, and the other confirmations complete the SSUBSCRIBEs
     * sent after it (a single channel's too: its stage could complete before Redis even read it, and a view would
     * load a topic not subscribed yet). A PING's reply is a normal reply, which confirmations never complete, and
     * Redis answers in order: when it comes, Redis has run every command sent before it on that connection,
     * the SSUBSCRIBE included, so each channel is subscribed. One command per batch instead of one per channel:
     * Redis and Lettuce handle 2 commands where they handled 256.
     *
     * <p>Standalone, a channel Redis already confirmed on the current PubSub connection is not subscribed again: after
     * a reconnect Lettuce renews every subscription itself, before any command of ours, and a resync that subscribed
     * them all once more made Redis and Lettuce handle every confirmation twice (10,000 per resync of 10,000
     * services). A subscribe waits for the PING sent behind Lettuce's renewal, so its confirmations are in by then;
     * a channel it did not renew (Redis refused it) is subscribed as any other. (On a cluster Lettuce's renewal of
     * a node connection's channels fails when they are of several slots; Lodestar renews them per slot itself.)
     */
    @Override
    public CompletionStage<Void> subscribe(List<String> channels) {
        if (channels.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        if (!cluster) {
            return resubscribed.handle((renewed, notRenewed) -> null).thenCompose(ignored -> {
                List<String> missing = channels.stream().filter(channel -> !subscribedHere.contains(channel))
                        .toList();
                return missing.isEmpty() ? CompletableFuture.completedFuture(null)
                        : confirmed(connectedPubSub(), missing);
            });
        }
        wanted.addAll(channels);
        return CompletableFuture.allOf(bySlot(channels).stream()
                .map(ofSlot -> subscribeAtOwner(ofSlot, true).toCompletableFuture())
                .toArray(CompletableFuture[]::new));
    }

    /** The channels grouped by cluster slot (one SSUBSCRIBE each), in slot order. */
    private static Collection<List<String>> bySlot(Collection<String> channels) {
        Map<Integer, List<String>> bySlot = new TreeMap<>();
        for (String channel : channels) {
            bySlot.computeIfAbsent(SlotHash.getSlot(channel), slot -> new ArrayList<>()).add(channel);
        }
        return bySlot.values();
    }

    /** SSUBSCRIBE of the channels, then a PING: completes when Redis ran both (see {@link #subscribe(List)}). */
    private CompletionStage<Void> confirmed(StatefulRedisPubSubConnection<String, String> connection,
                                            List<String> channels) {
        subscribeCommands.increment();
        var async = connection.async();
        RedisFuture<Void> subscribed = async.ssubscribe(channels.toArray(String[]::new));
        RedisFuture<String> barrier = async.ping();
        // The SSUBSCRIBE's own stage says only whether it failed: a failure (an error reply) completes it, and it
        // comes before the PING's reply.
        return barrier.toCompletableFuture().thenCompose(pong -> subscribed.toCompletableFuture()
                .thenApply(ignored -> (Void) null));
    }

    boolean isCluster() {
        return cluster;
    }

    /** Unsubscribes a shard channel (on a cluster at the node it is subscribed at) and stops following it. */
    @Override
    public CompletionStage<Void> unsubscribe(String channel) {
        if (!cluster) {
            subscribedHere.remove(channel); // before the SUNSUBSCRIBE: a subscribe from now on must send its own
            return CompletableFuture.completedFuture(null)
                    .thenCompose(ignored -> connectedPubSub().async().sunsubscribe(channel));
        }
        wanted.remove(channel);
        orphans.remove(channel);
        droppedBy.remove(channel);
        String node = subscribedAt.remove(channel);
        // Redis confirms with the same "sunsubscribe" message it sends when it drops a subscription: count ours,
        // so that a subscribe of the same channel right after (a view reading it again) does not take the
        // confirmation for a drop.
        unsubscribing.merge(channel, 1, Integer::sum);
        return CompletableFuture.completedFuture(null)
                .thenCompose(ignored -> node != null ? nodeConnection(node) : ownerConnection(channel).connection())
                .thenCompose(connection -> connection.async().sunsubscribe(channel))
                .whenComplete((ok, failure) -> {
                    if (failure != null) {
                        confirmedUnsubscribe(channel); // no confirmation will come
                    }
                });
    }

    /** @return whether a pending unsubscribe of ours explains a "sunsubscribe" message for this channel */
    private boolean confirmedUnsubscribe(String channel) {
        boolean[] ours = new boolean[1];
        unsubscribing.computeIfPresent(channel, (key, pending) -> {
            ours[0] = true;
            return pending > 1 ? pending - 1 : null;
        });
        return ours[0];
    }

    /** The PubSub connection (standalone; on a cluster the one that routes to the nodes); package-private for tests. */
    StatefulRedisPubSubConnection<String, String> connectedPubSub() {
        StatefulRedisPubSubConnection<String, String> subscriber = pubSub;
        if (subscriber == null) {
            throw new UnavailableException("Not connected to Redis at " + where + ": it could not be reached since"
                    + " this client started (retrying in the background)");
        }
        return subscriber;
    }

    /**
     * SSUBSCRIBE of channels of one slot at the slot's owner as this client's topology says (one command and a
     * PING, see {@link #subscribe(List)}); on a redirect (the topology is older than the move) once more after a
     * refresh.
     */
    private CompletionStage<Void> subscribeAtOwner(List<String> channels, boolean refreshOnRedirect) {
        CompletableFuture<Void> subscribed = new CompletableFuture<>();
        CompletableFuture.completedFuture(null)
                .thenCompose(ignored -> {
                    Owner owner = ownerConnection(channels.get(0));
                    List<Drop> drops = new ArrayList<>(channels.size());
                    for (String channel : channels) {
                        Drop drop = droppedBy.get(channel);
                        if (drop != null && drop.nodeId().equals(owner.nodeId())
                                && System.nanoTime() - drop.atNanos() < DROP_MEMORY_NANOS) {
                            // The topology is older than the drop. The dropping node, now a replica, would even
                            // accept the subscription, but messages reach it only once it has taken in the new
                            // configuration: a resync done meanwhile could be followed by events it never gets.
                            throw new UnavailableException("The topology of " + where + " still names the node"
                                    + " that dropped " + channel);
                        }
                        drops.add(drop);
                    }
                    // Subscribed at the owner already (and neither dropped nor lost since: either forgets it), e.g.
                    // re-homed before the resync that follows: not sent again.
                    List<String> missing = channels.stream()
                            .filter(channel -> !owner.nodeId().equals(subscribedAt.get(channel))).toList();
                    if (missing.isEmpty()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    return owner.connection()
                            .thenCompose(connection -> confirmed(connection, missing))
                            .thenRun(() -> {
                                for (int i = 0; i < channels.size(); i++) {
                                    subscribedAt.put(channels.get(i), owner.nodeId());
                                    if (drops.get(i) != null) {
                                        droppedBy.remove(channels.get(i), drops.get(i));
                                    }
                                }
                            });
                })
                .whenComplete((ok, failure) -> {
                    if (failure == null) {
                        subscribed.complete(null);
                    } else if (refreshOnRedirect && isRedirect(failure)) {
                        refreshTopology().thenCompose(ignored -> subscribeAtOwner(channels, false))
                                .whenComplete((again, failed) -> {
                                    if (failed == null) {
                                        subscribed.complete(null);
                                    } else {
                                        subscribed.completeExceptionally(failed);
                                    }
                                });
                    } else {
                        subscribed.completeExceptionally(failure);
                    }
                });
        return subscribed;
    }

    private static boolean isRedirect(Throwable failure) {
        String message = String.valueOf(Errors.unwrap(failure).getMessage());
        return message.startsWith("MOVED") || message.startsWith("ASK");
    }

    private record Drop(String nodeId, long atNanos) {
    }

    private record Owner(String nodeId, CompletionStage<StatefulRedisPubSubConnection<String, String>> connection) {
    }

    /** The owner of a channel's slot and its PubSub connection; fails at once when that node is lost. */
    private Owner ownerConnection(String channel) {
        StatefulRedisClusterPubSubConnection<String, String> clusterPubSub =
                (StatefulRedisClusterPubSubConnection<String, String>) connectedPubSub();
        RedisClusterNode owner = clusterPubSub.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel));
        if (owner == null) {
            throw new UnavailableException("No cluster node at " + where + " owns the slot of " + channel);
        }
        return new Owner(owner.getNodeId(), nodeConnection(owner.getNodeId()));
    }

    /** A node's PubSub connection, opened without blocking; a lost one fails at once instead of queueing. */
    private CompletionStage<StatefulRedisPubSubConnection<String, String>> nodeConnection(String nodeId) {
        StatefulRedisPubSubConnection<String, String> known = nodeConnections.get(nodeId);
        if (known != null && lost.contains(known)) {
            return CompletableFuture.failedFuture(new UnavailableException("The cluster node " + nodeId + " at "
                    + where + " cannot be reached (reconnecting)"));
        }
        StatefulRedisClusterPubSubConnection<String, String> clusterPubSub =
                (StatefulRedisClusterPubSubConnection<String, String>) connectedPubSub();
        return clusterPubSub.getConnectionAsync(nodeId).thenApply(connection -> {
            nodeConnections.put(nodeId, connection);
            heartbeat.watch(connection);
            return connection;
        });
    }

    /** Redis said a subscription ended: ours on purpose (no longer wanted), or dropped because its slot moved. */
    private void dropped(RedisClusterNode node, String channel) {
        if (confirmedUnsubscribe(channel) || closed || !wanted.contains(channel)) {
            return;
        }
        String at = subscribedAt.get(channel);
        if (node != null && at != null && !at.equals(node.getNodeId())) {
            return; // a stale subscription at a node the channel left already
        }
        subscribedAt.remove(channel, at);
        if (node != null) {
            droppedBy.put(channel, new Drop(node.getNodeId(), System.nanoTime()));
        }
        log.debug("Redis at {} dropped the subscription of {}{}; subscribing at the slot's owner", where, channel,
                node == null ? "" : " at " + node.getUri());
        orphan(List.of(channel));
    }

    private void orphan(Collection<String> channels) {
        orphans.addAll(channels);
        scheduleRehome(0);
    }

    /** One re-homing round at a time; the first after a short delay so a burst of drops shares one refresh. */
    private void scheduleRehome(int attempt) {
        if (closed || orphans.isEmpty() || !rehoming.compareAndSet(false, true)) {
            return;
        }
        long delay = attempt == 0 ? REHOME_FIRST_DELAY_MS
                : attempt <= REHOME_FAST_ATTEMPTS ? REHOME_INTERVAL_MS : REHOME_SLOW_INTERVAL_MS;
        rehomeWaiting.set(true);
        Executor later = CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS);
        CompletableFuture.runAsync(() -> {
            if (rehomeWaiting.compareAndSet(true, false)) { // else a node came back and started it already
                rehome(attempt);
            }
        }, later);
    }

    /**
     * A node connection is back while channels wait for their owner: the round waiting for the retry interval
     * starts now (after the short first delay, so the other nodes coming back join it); a round running now is
     * followed by one at once.
     */
    private void rehomeNow() {
        rehomeSoon = true;
        if (rehomeWaiting.compareAndSet(true, false)) {
            CompletableFuture.runAsync(() -> rehome(0),
                    CompletableFuture.delayedExecutor(REHOME_FIRST_DELAY_MS, TimeUnit.MILLISECONDS));
        } else {
            scheduleRehome(0);
        }
    }

    /**
     * Refreshes the topology, then subscribes every orphaned channel at its owner and tells the resubscribe
     * handler; channels whose owner cannot be reached yet (a master down, no replica promoted yet) stay orphaned
     * for the next round.
     */
    private void rehome(int attempt) {
        List<String> batch = new ArrayList<>(orphans);
        refreshTopology().handle((refreshed, failure) -> {
            List<CompletableFuture<Boolean>> results = new ArrayList<>();
            List<String> stillWanted = new ArrayList<>(batch.size());
            for (String channel : batch) {
                if (wanted.contains(channel)) {
                    stillWanted.add(channel);
                } else {
                    orphans.remove(channel);
                }
            }
            for (List<String> channels : bySlot(stillWanted)) { // one SSUBSCRIBE per slot (a bucket's services)
                results.add(subscribeAtOwner(channels, false).toCompletableFuture()
                        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .handle((ok, failed) -> {
                            if (failed != null) {
                                log.debug("Cannot subscribe {} channels of slot {} at their owner yet: {}",
                                        channels.size(), SlotHash.getSlot(channels.get(0)), failed.toString());
                                return false;
                            }
                            orphans.removeAll(channels);
                            channels.forEach(resubscribeHandler);
                            return true;
                        }));
            }
            return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).whenComplete((all, ignored) -> {
                boolean progress = results.stream().anyMatch(result -> result.join());
                rehoming.set(false);
                if (progress && orphans.isEmpty() && !closed) {
                    // Every subscription is in place again: what a lost node made stale can resync and be fresh.
                    listeners.forEach(listener -> listener.connected(where));
                }
                boolean soon = rehomeSoon;
                rehomeSoon = false;
                scheduleRehome(progress || soon ? 0 : attempt + 1);
            });
        });
    }

    /**
     * A command failed: on a cluster, a failure to reach a node, or a command that timed out (it may have waited in
     * the queue of a node that died), means the client's topology may be out of date (a client that started while a
     * master was down still sends its slots there after the promotion, and Lettuce's adaptive triggers cover only
     * reconnects of connections it once had and redirects), so it asks for the topology now, at most once per
     * {@link #FAILURE_REFRESH_INTERVAL_MS}.
     */
    void commandFailed(Throwable failure) {
        Throwable cause = Errors.unwrap(failure);
        if (cause instanceof RedisConnectionException || cause instanceof RedisCommandTimeoutException) {
            refreshSoon();
        }
    }

    /** Cluster: a topology refresh now, unless one was asked for in the last {@link #FAILURE_REFRESH_INTERVAL_MS}. */
    private void refreshSoon() {
        if (!cluster || closed) {
            return;
        }
        long now = System.nanoTime();
        long last = lastFailureRefresh.get();
        if (now - last >= TimeUnit.MILLISECONDS.toNanos(FAILURE_REFRESH_INTERVAL_MS)
                && lastFailureRefresh.compareAndSet(last, now)) {
            refreshTopology();
        }
    }

    /**
     * Cluster: asks for the topology now, as the periodic refresh does (never fails: a failed refresh keeps the
     * old topology). Package-private for tests.
     */
    CompletionStage<Void> refreshTopology() {
        return ((RedisClusterClient) client).refreshPartitionsAsync()
                .exceptionally(failure -> {
                    log.debug("Topology refresh of {} failed: {}", where, failure.toString());
                    return null;
                });
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        Thread connecting = connector;
        if (connecting != null) {
            connecting.interrupt();
        }
        reconnectFailures.dispose();
        try {
            if (pubSub != null) {
                pubSub.close();
            }
            if (commandConnection != null) {
                commandConnection.close();
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            if (ownResources != null) {
                shutdownOwn(ownResources);
            }
        }
    }

    /**
     * PINGs the command and the PubSub connection (standalone and Sentinel) or every node PubSub connection (cluster;
     * RESP3 allows PING while subscribed) every half command timeout (50 ms to 1 s). On a cluster a node that stops
     * answering counts as lost as a disconnect does: its subscriptions are re-homed (they stay orphaned, the view
     * stale, while the node holds their slots and stays silent), and its first answer starts the re-homing at once.
     * Its command connection needs no PING: its commands fail within the command timeout. A connection that is open
     * but has not answered for the command timeout (at least 100 ms) makes its node count as lost: the listeners hear
     * {@code disconnected} (views turn stale, as on a disconnect), {@link #isConnected()} is false and {@link
     * #nodes()} says why; the first answer after that makes them hear {@code connected} (views resync). A connection
     * that is closed is the {@link StateListener}'s business: its clock starts again when it reconnects. Never
     * blocks.
     */
    private final class Heartbeat {
        /** Half the command timeout, between 50 ms (a shorter timeout must not cost 100 PINGs a second) and 1 s. */
        private final long intervalMillis = Math.max(50, Math.min(1_000, timeout.toMillis() / 2));
        /**
         * The command timeout, but at least two intervals: a connection is asked once an interval, so with a
         * shorter bound one that answers every PING would look silent between two of them.
         */
        private final Duration silentAfter = max(timeout, Duration.ofMillis(2 * intervalMillis));
        private final long silentAfterNanos = silentAfter.toNanos();
        private final Map<RedisChannelHandler<?, ?>, Probe> probes = new ConcurrentHashMap<>();
        /** Connections Redis left silent right now. */
        private final Set<Probe> silentNow = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean started = new AtomicBoolean();

        /** One connection's PINGs: when it last answered, whether a PING waits for its answer. */
        private final class Probe {
            final StatefulConnection<String, String> connection;
            volatile long lastAnswerNanos = System.nanoTime();
            final AtomicBoolean waiting = new AtomicBoolean();

            Probe(StatefulConnection<String, String> connection) {
                this.connection = connection;
            }
        }

        void start() {
            if (started.compareAndSet(false, true)) {
                if (!cluster) {
                    watch(commandConnection);
                    watch(pubSub);
                }
                schedule();
            }
        }

        /** PINGs this connection too (again: nothing new). */
        void watch(StatefulConnection<String, String> connection) {
            probes.computeIfAbsent((RedisChannelHandler<?, ?>) connection, handler -> new Probe(connection));
        }

        boolean silent() {
            return !silentNow.isEmpty();
        }

        /**
         * On the resources' event executors, not their timer: the timer holds only what a client's own work put
         * there (command timeouts, leases), so an idle client leaves it empty.
         */
        private void schedule() {
            if (!closed) {
                try {
                    client.getResources().eventExecutorGroup().schedule(this::beat, intervalMillis,
                            TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException shutDown) {
                    // the resources are shutting down: so is this client
                }
            }
        }

        private void beat() {
            try {
                long now = System.nanoTime();
                probes.values().forEach(probe -> probe(probe, now));
            } catch (RuntimeException e) {
                log.debug("Heartbeat of {} failed: {}", where, e.toString());
            } finally {
                schedule();
            }
        }

        private void probe(Probe probe, long now) {
            if (((RedisChannelHandler<?, ?>) probe.connection).isClosed()) {
                probes.remove((RedisChannelHandler<?, ?>) probe.connection, probe); // a node left the topology
                silentNow.remove(probe);
                return;
            }
            if (closed || !probe.connection.isOpen()) {
                probe.lastAnswerNanos = now; // lost or closed: the StateListener says so; the clock waits
                return;
            }
            if (probe.waiting.compareAndSet(false, true)) {
                ping(probe.connection).whenComplete((pong, failure) -> {
                    probe.waiting.set(false);
                    if (failure == null) {
                        answered(probe);
                    }
                });
            }
            if (now - probe.lastAnswerNanos > silentAfterNanos && silentNow.add(probe)) {
                String node = nodeOf(probe.connection);
                String problem = "no answer from " + node + " for " + span(silentAfter);
                connections.put((RedisChannelHandler<?, ?>) probe.connection, new NodeState(node, false,
                        Instant.now().minusNanos(now - probe.lastAnswerNanos), problem));
                log.warn("Redis at {} gave {}: treating the connection as lost until it answers", where, problem);
                if (cluster) {
                    lost.add((RedisChannelHandler<?, ?>) probe.connection); // subscribing there fails at once
                    if (orphanSubscriptionsOf((RedisChannelHandler<?, ?>) probe.connection)) {
                        listeners.forEach(listener -> listener.disconnected(node));
                    }
                } else if (silentNow.size() == 1) {
                    listeners.forEach(listener -> listener.disconnected(node));
                }
            }
        }

        private CompletionStage<String> ping(StatefulConnection<String, String> connection) {
            return connection == commandConnection ? commands.ping()
                    : ((StatefulRedisPubSubConnection<String, String>) connection).async().ping();
        }

        private void answered(Probe probe) {
            probe.lastAnswerNanos = System.nanoTime();
            if (silentNow.contains(probe)) {
                String node = nodeOf(probe.connection);
                connections.put((RedisChannelHandler<?, ?>) probe.connection, new NodeState(node, true,
                        Instant.now()));
                if (!silentNow.remove(probe) || closed) {
                    return;
                }
                if (cluster) {
                    log.info("Redis at {} answers again", node);
                    // its subscriptions come back with the re-homing, which then tells the listeners
                    lost.remove((RedisChannelHandler<?, ?>) probe.connection);
                    if (!orphans.isEmpty()) {
                        rehomeNow();
                    }
                } else if (silentNow.isEmpty()) {
                    log.info("Redis at {} answers again", where);
                    listeners.forEach(listener -> listener.connected(node));
                }
            }
        }

        /** A connection came back (Lettuce reconnected it): its clock starts now, and it is silent no more. */
        void reconnected(RedisChannelHandler<?, ?> connection) {
            Probe probe = probes.get(connection);
            if (probe != null) {
                probe.lastAnswerNanos = System.nanoTime();
                silentNow.remove(probe); // the StateListener tells the listeners it is connected
            }
        }

        private static Duration max(Duration a, Duration b) {
            return a.compareTo(b) >= 0 ? a : b;
        }

        /** {@code 5 s}, or {@code 500 ms} for what is not whole seconds. */
        private static String span(Duration duration) {
            return duration.toMillis() % 1_000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
        }

        private String nodeOf(StatefulConnection<String, String> connection) {
            NodeState state = connections.get((RedisChannelHandler<?, ?>) connection);
            return state == null ? where : state.address();
        }
    }

    /**
     * Hears every connection of the client, including the cluster topology refresh's short-lived probes. Those are
     * closed on purpose, so only the loss of a connection not closed (Lettuce reconnects it) counts; and on a
     * cluster only the loss of a node connection that carries subscriptions, since only that can make a view miss
     * events (a command connection's loss shows in the commands' own errors).
     */
    private final class StateListener implements RedisConnectionStateListener {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
            String node = address(address);
            connections.put(connection, new NodeState(node, true, Instant.now()));
            heartbeat.reconnected(connection);
            boolean back = lost.remove(connection);
            if (!cluster && back && connection == pubSub) {
                // Lettuce wrote its re-subscription before telling us: a PING now is answered after it
                resubscribed = pubSub.async().ping().toCompletableFuture();
            }
            if (!cluster || back && nodeConnections.containsValue(connection)) {
                listeners.forEach(listener -> listener.connected(node));
            }
            if (cluster && back && !orphans.isEmpty()) {
                rehomeNow(); // a round that found this node unreachable waits REHOME_INTERVAL_MS: no need now
            }
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            if (closed || connection.isClosed()) {
                connections.remove(connection); // closed on purpose (a topology probe, or ours): nothing was lost
                return;
            }
            NodeState state = connections.get(connection);
            String node = state == null ? where : state.address();
            if (state != null) {
                connections.put(connection, new NodeState(node, false, Instant.now()));
            }
            lost.add(connection);
            if (!cluster && connection == pubSub) {
                subscribedHere.clear();
            }
            if (!cluster || orphanSubscriptionsOf(connection)) {
                listeners.forEach(listener -> listener.disconnected(node));
            }
        }
    }

    private static String address(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getHostString() + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }

    /**
     * A lost node connection takes its subscriptions along until it is back or another node owns their slots
     * (a master killed, its replica promoted): follow them at once rather than wait for the node. If the node
     * comes back as the owner, subscribing there again is harmless.
     *
     * @return whether the connection carried subscriptions
     */
    private boolean orphanSubscriptionsOf(RedisChannelHandler<?, ?> connection) {
        List<String> channels = new ArrayList<>();
        nodeConnections.forEach((node, nodeConnection) -> {
            if (nodeConnection == connection) {
                subscribedAt.forEach((channel, at) -> {
                    if (at.equals(node) && subscribedAt.remove(channel, at)) {
                        channels.add(channel);
                    }
                });
            }
        });
        if (!channels.isEmpty()) {
            orphan(channels);
        }
        return !channels.isEmpty();
    }
}
