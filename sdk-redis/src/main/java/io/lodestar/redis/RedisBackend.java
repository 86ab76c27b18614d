package io.lodestar.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lodestar.core.AccessDeniedException;
import io.lodestar.core.ClientClosedException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.UnavailableException;
import io.lodestar.redis.internal.time.Clock;
import io.netty.util.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The Redis connections of one client: a command connection and a PubSub connection, for standalone, Sentinel
 * and Cluster alike. Commands fail fast while disconnected (no silent queueing), Lettuce reconnects by itself,
 * and every (re)connect and disconnect is reported to the listeners so views can resync and say they are stale.
 *
 * <p>Events use sharded PubSub (SPUBLISH/SSUBSCRIBE), each subscribe confirmed by a {@link PingBarrier}. On a
 * cluster a shard channel must be subscribed at the node that owns its slot and follows its slot wherever it goes
 * ({@link ClusterSubscriptions}); channels subscribed again after a drop are reported to the
 * {@linkplain #onResubscribed resubscribe handler} so the view re-reads what it may have missed. Standalone, see
 * {@link StandaloneSubscriptions}.
 *
 * <p>Only the loss of a connection that is open for commands or subscriptions counts as a disconnect: a
 * connection closed on purpose (a cluster topology refresh opens and closes probe connections) makes no view stale
 * and triggers no resync.
 *
 * <p>A Redis that stops answering without closing anything (a frozen process, a partition that drops packets)
 * closes no connection, and TCP keepalive cannot tell: a stopped process's kernel still acknowledges every packet.
 * So each connection is PINGed (a {@link Heartbeat}; on a cluster each node's PubSub connection, which carries
 * that node's subscriptions); one that leaves Redis silent for the command timeout counts as lost, exactly as a
 * disconnect, until Redis answers again. Connects and handshakes are bounded by the command timeout too (Lettuce's
 * handshake waits for the URI's timeout, 60 s by default).
 *
 * <p>When Redis cannot be reached at start-up, creation fails, unless a config snapshot directory is configured:
 * then the backend starts offline (every command fails at once, as while disconnected) and keeps connecting in
 * the background ({@link OfflineStart}), so an application can start with its last known config. The Lettuce client
 * itself is built by {@link ClientSettings}.
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

    private static final Logger log = LoggerFactory.getLogger(RedisBackend.class);
    /** At most one look at the topology per this interval because commands failed to reach a node. */
    private static final Duration FAILURE_REFRESH_INTERVAL = Duration.ofMillis(250);
    /** A client acts on failed reconnects at most once per this interval (see {@link #heard}). */
    private static final Duration RECONNECT_FAILED_COALESCE = Duration.ofMillis(10);

    private final AbstractRedisClient client;
    // Null until the first connection succeeds, then set once; after an offline start, commands is a stand-in that
    // fails every command until then.
    private volatile StatefulConnection<String, String> commandConnection;
    private volatile RedisClusterAsyncCommands<String, String> commands;
    /**
     * Null until a view first subscribes (see {@link #openPubSub}); on a cluster Lettuce's cluster PubSub connection,
     * which routes to the node connections.
     */
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    /** Standalone and Sentinel: the URI the PubSub connection opens with (null on a cluster). */
    private final RedisURI pubSubUri;
    /** The PubSub connection being opened, or null; guarded by this. */
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSubOpening;
    private volatile OfflineStart offlineStart;
    private volatile boolean closed;
    private final boolean cluster;
    private final String where;
    private final String namespace;
    private final Duration timeout;
    /** Time and scheduling: the resources' event executors (not their timer, which holds only a client's work). */
    private final Clock clock;
    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    private volatile BiConsumer<String, String> messageHandler = (channel, message) -> { };
    private volatile Consumer<String> resubscribeHandler = channel -> { };
    /** Connections lost (reconnecting, or left silent by Redis) right now. */
    private final Set<RedisChannelHandler<?, ?>> lost = ConcurrentHashMap.newKeySet();
    private final PingBarrier barrier = new PingBarrier();
    /** SSUBSCRIBE commands sent (tests). */
    final LongAdder subscribeCommands = barrier.sent;
    /** Cluster only (else null). */
    private final ClusterSubscriptions clusterSubscriptions;
    /** Standalone and Sentinel only (else null). */
    private final StandaloneSubscriptions standaloneSubscriptions;
    private final RefreshThrottle failureRefreshes;
    /** Cluster only (else null): refreshes the topology when a reachable node sees another one. */
    private final TopologyProbe topologyProbe;
    /** Finds connections Redis stopped answering on (on a cluster, the node PubSub connections). */
    private final Heartbeat<StatefulConnection<String, String>> heartbeat;

    /** Null when the resources are the caller's: whoever creates a resource closes it. */
    private final ClientResources ownResources;
    /**
     * Every connection (handler) of this client that is not closed, with its node and state; a lost one stays,
     * disconnected, while Lettuce reconnects it.
     */
    private final Map<RedisChannelHandler<?, ?>, NodeState> connections = new ConcurrentHashMap<>();
    /** What this client saw of Redis being unreachable, for the sweep's outage rule (see Sweeper). */
    private final OutageEvidence outages = new OutageEvidence();
    /** What an outage writes to the log: a WARN when it begins, an INFO when it ends, per connection kind. */
    private final OutageLog outageLog;
    /** Hears Lettuce's failed reconnects and topology changes (see {@link #heard}); closed on close. */
    private final SharedEventBus.Hearing lettuceEvents;
    /** When {@link #heard} last acted on a failed reconnect (read and written on the bus's delivery thread only). */
    private long reconnectFailedHandledNanos;

    private RedisBackend(LodestarOptions options, ClientResources resources, boolean ownsResources) {
        this.ownResources = ownsResources ? resources : null;
        this.where = options.redactedRedisUri();
        this.namespace = options.namespace().name();
        this.timeout = options.commandTimeout();
        this.cluster = ClientSettings.isCluster(options.redisUri());
        this.client = ClientSettings.create(options, resources);
        this.pubSubUri = cluster ? null : ClientSettings.standaloneUri(options); // create() checked that it parses
        this.clock = Clock.system(client.getResources().eventExecutorGroup());
        this.failureRefreshes = new RefreshThrottle(clock, FAILURE_REFRESH_INTERVAL);
        this.topologyProbe = cluster ? new TopologyProbe((RedisClusterClient) client, where, this::clusterConnection,
                this::defaultNode, this::reachableNodes, this::refreshTopology) : null;
        this.outageLog = new OutageLog(clock, where);
        this.clusterSubscriptions = cluster ? new ClusterSubscriptions(new ClusterHost(), barrier, clock, timeout,
                where, () -> closed) : null;
        this.standaloneSubscriptions = cluster ? null : new StandaloneSubscriptions(barrier, this::openPubSub,
                this::standalonePubSubAskedFor, timeout);
        client.addListener(new StateListener());
        this.lettuceEvents = SharedEventBus.listen(client.getResources().eventBus(), this::heard);
        this.heartbeat = new Heartbeat<>(timeout, clock, new HeartbeatTarget(), () -> closed);
        try {
            openOnceMoreIfCutShort();
        } catch (RuntimeException e) {
            String reason = ClientSettings.describe(e);
            if (ClientSettings.isAccessDenied(reason)) {
                lettuceEvents.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                throw new AccessDeniedException("Redis at " + where + " refused the credentials of the URI (check"
                        + " the user name and password; see docs/redis.md for the ACL Lodestar needs): " + reason, e);
            }
            if (options.startupMode() == StartupMode.FAIL_FAST) {
                lettuceEvents.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                throw new UnavailableException("Cannot connect to Redis at " + where + ": " + reason
                        + " (set startupMode OFFLINE to start without Redis and connect in the background)", e);
            }
            log.warn("Cannot connect to Redis at {} ({}); starting offline: reads serve what the snapshot directory"
                    + " holds, writes fail until a connection succeeds (retried in the background)", where, reason);
            outages.seen(System.nanoTime());
            // made only here: a JDK proxy of Lettuce's command interface costs about 60 ms of a client's start
            this.commands = OfflineStart.offlineCommands(where);
            connectInBackground();
        }
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
            if (!ClientSettings.describe(e).contains("closed prematurely")) {
                throw e;
            }
            log.debug("Connecting to Redis at {} was cut short ({}); trying once more", where,
                    ClientSettings.describe(e));
            open();
        }
    }

    /**
     * Opens the command connection; blocking, bounded by the connect timeout. The PubSub connection opens when a view
     * first subscribes ({@link #openPubSub}): a client that never watches (a CLI command, a job that only registers
     * or reads directly) holds only its command connection(s).
     */
    private void open() {
        StatefulConnection<String, String> connection;
        RedisClusterAsyncCommands<String, String> async;
        if (client instanceof RedisClusterClient clusterClient) {
            StatefulRedisClusterConnection<String, String> clusterConnection = clusterClient.connect(StringCodec.UTF8);
            connection = clusterConnection;
            async = clusterConnection.async();
        } else {
            var standaloneConnection = ((RedisClient) client).connect(StringCodec.UTF8);
            connection = standaloneConnection;
            async = standaloneConnection.async();
        }
        synchronized (this) {
            if (closed) {
                connection.close();
                return;
            }
            this.commandConnection = connection;
            this.commands = async;
        }
        if (!cluster) {
            heartbeat.watch(connection);
        }
        heartbeat.start();
    }

    /**
     * The PubSub connection, opened without blocking when a view first subscribes (the subscribe waits for it,
     * bounded by the connect timeout). A failed opening fails that subscribe, which the view retries as any other;
     * the next subscribe opens anew. Before the command connection ever succeeded (an offline start) there is none to
     * open: Redis was not reachable.
     */
    private CompletionStage<StatefulRedisPubSubConnection<String, String>> openPubSub() {
        StatefulRedisPubSubConnection<String, String> subscriber = pubSub;
        if (subscriber != null) {
            return CompletableFuture.completedFuture(subscriber);
        }
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(closedException());
            }
            if (pubSub != null) {
                return CompletableFuture.completedFuture(pubSub);
            }
            if (commandConnection == null) {
                return CompletableFuture.failedFuture(notConnectedYet());
            }
            if (pubSubOpening == null) {
                CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connecting = cluster
                        ? ((RedisClusterClient) client).connectPubSubAsync(StringCodec.UTF8)
                        : ((RedisClient) client).connectPubSubAsync(StringCodec.UTF8, pubSubUri).toCompletableFuture();
                pubSubOpening = connecting.handle((connection, failure) -> adoptPubSub(connection, failure));
            }
            return pubSubOpening;
        }
    }

    /** Standalone: the PubSub connection opened or being opened, or null when no view ever asked for one. */
    private synchronized CompletionStage<StatefulRedisPubSubConnection<String, String>> standalonePubSubAskedFor() {
        return pubSub != null ? CompletableFuture.completedFuture(pubSub) : pubSubOpening;
    }

    /** The PubSub connection just opened (or why it did not): listened to, watched, and kept; or forgotten. */
    private StatefulRedisPubSubConnection<String, String> adoptPubSub(
            StatefulRedisPubSubConnection<String, String> connection, Throwable failure) {
        synchronized (this) {
            pubSubOpening = null;
            if (failure != null) {
                throw new UnavailableException("Cannot open the PubSub connection to Redis at " + where + ": "
                        + ClientSettings.describe(Errors.unwrap(failure)), Errors.unwrap(failure));
            }
            if (closed) {
                connection.closeAsync();
                throw closedException();
            }
            if (connection instanceof StatefulRedisClusterPubSubConnection<String, String> clusterPubSub) {
                clusterPubSub.setNodeMessagePropagation(true);
                clusterPubSub.addListener(new RedisClusterPubSubAdapter<>() {
                    @Override
                    public void smessage(RedisClusterNode node, String channel, String message) {
                        messageHandler.accept(channel, message);
                    }

                    @Override
                    public void sunsubscribed(RedisClusterNode node, String channel, long count) {
                        clusterSubscriptions.dropped(node, channel);
                    }
                });
            } else {
                connection.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void smessage(String channel, String message) {
                        messageHandler.accept(channel, message);
                    }

                    @Override
                    public void ssubscribed(String channel, long count) {
                        standaloneSubscriptions.confirmed(channel);
                    }
                });
            }
            pubSub = connection;
        }
        if (!cluster) { // on a cluster the heartbeat watches the node connections (ClusterSubscriptions.Host#opened)
            heartbeat.watch(connection);
        }
        return connection;
    }

    private UnavailableException notConnectedYet() {
        return new UnavailableException("Not connected to Redis at " + where + ": it could not be reached since"
                + " this client started (retrying in the background)");
    }

    /** Offline start: connects with backoff until it succeeds or the backend is closed; then reports connected. */
    private void connectInBackground() {
        offlineStart = OfflineStart.inBackground(() -> {
            try {
                open();
            } catch (RuntimeException e) {
                log.debug("Redis at {} still cannot be reached: {}", where, e.toString());
            }
            return commandConnection != null;
        }, () -> {
            log.info("Connected to Redis at {}", where);
            listeners.forEach(listener -> listener.connected(where));
        });
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
                ClientSettings.shutdownOwn(resources);
            }
            throw e;
        }
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
    public boolean reportsResubscriptions() {
        return cluster; // ClusterSubscriptions re-homes each channel a lost node took along, and reports it
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    /**
     * Lettuce's timer of this client's resources (a hashed wheel: {@link ClientSettings#TIMER_TICK_MS} ms ticks for the
     * resources a client creates, Lettuce's default 100 ms for a caller's unless they say otherwise): stopped with the
     * resources, so by this client's close when they are its own, else by their owner.
     */
    Timer timer() {
        return client.getResources().timer();
    }

    /**
     * Whether events can flow: standalone, the command connection is up and so is the PubSub connection once a view
     * opened it; on a cluster, every subscription is in place
     * at a reachable node (the cluster connections' default node says nothing about the others, and commands
     * route per node anyway).
     */
    @Override
    public boolean isConnected() {
        StatefulConnection<String, String> connection = commandConnection;
        StatefulRedisPubSubConnection<String, String> subscriber = pubSub;
        if (connection == null) {
            return false;
        }
        if (cluster) {
            return clusterSubscriptions.inPlace(); // no PubSub connection yet: nothing subscribed, nothing to miss
        }
        // no PubSub connection yet: no view subscribed, so none can miss an event
        return connection.isOpen() && (subscriber == null || subscriber.isOpen()) && !heartbeat.silent();
    }

    /** What this client saw of Redis being unreachable (renewals add to it; see Sweeper). */
    OutageEvidence outages() {
        return outages;
    }

    /**
     * An event of Lettuce's (on the resources' event bus, shared with other clients when the resources are the
     * caller's, through one {@link SharedEventBus} subscription for all of them: each event only makes this client
     * look again). A topology that changed (any refresh saw it: a write's, a failed reconnect's, Lettuce's own, a
     * re-homing round's) may name the new owner of orphaned subscriptions: they are re-homed at once, not at the
     * next round (up to 250 ms later), so the views follow a promotion as soon as the writes do.
     */
    private void heard(Event event) {
        if (event instanceof ReconnectFailedEvent) {
            // The bus names no client in its events, so every client sharing the resources hears every failed
            // reconnect: one with nothing lost ignores it at the cost of a look at its few connections, and one
            // with something lost acts at most once per RECONNECT_FAILED_COALESCE (a restart makes each of a
            // JVM's connections fail a dozen times, heard by each of its clients). The outage stays as seen: its
            // beginning is the lost connection's, and the evidence of it goes on while failures do.
            long now = clock.nanoTime();
            if (hasLostConnection() && now - reconnectFailedHandledNanos >= RECONNECT_FAILED_COALESCE.toNanos()) {
                reconnectFailedHandledNanos = now;
                reconnectFailed();
            }
        } else if (cluster) {
            clusterSubscriptions.retrySoon();
        }
    }

    /** Whether any of this client's connections is lost (or silent) now. */
    private boolean hasLostConnection() {
        for (NodeState state : connections.values()) {
            if (!state.connected()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Lettuce could not reconnect a lost connection: Redis (on a cluster, a node that serves slots) cannot be reached,
     * since this client lost the connection it lost first. A connection that comes back at its first attempt (one
     * closed by Redis, {@code CLIENT KILL}, a PubSub connection cut off for its output buffer) is no outage: nothing
     * kept an owner from renewing. With a caller's shared resources, another client's failed reconnect counts too
     * while one of this client's connections is lost: harmless, an outage only makes the sweep spare more.
     */
    private void reconnectFailed() {
        outageLog.reconnectFailed();
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
            // triggers are rate-limited to one per 30 s): look with every failed reconnect (about every 0.5 s, at
            // most every 250 ms; a refresh only when a node sees another topology), so the promotion is seen within
            // about half a second.
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
        Set<String> owners = new HashSet<>();
        for (RedisClusterNode node : topology()) {
            if (!node.hasNoSlots()) { // not getSlots(): that lists thousands of boxed slots
                owners.add(address(node));
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
     * SSUBSCRIBE per cluster slot (standalone: one for all), each followed by a PING on the same connection (see
     * {@link PingBarrier}); completes when every PING has its reply. Standalone, a channel Redis already confirmed on
     * the current PubSub connection is not subscribed again (see {@link StandaloneSubscriptions}). (On a cluster
     * Lettuce's renewal of a node connection's channels fails when they are of several slots; Lodestar renews them
     * per slot itself.)
     */
    @Override
    public CompletionStage<Void> subscribe(List<String> channels) {
        if (channels.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return cluster ? clusterSubscriptions.subscribe(channels) : standaloneSubscriptions.subscribe(channels);
    }

    boolean isCluster() {
        return cluster;
    }


    /** Unsubscribes a shard channel (on a cluster at the node it is subscribed at) and stops following it. */
    @Override
    public CompletionStage<Void> unsubscribe(String channel) {
        return cluster ? clusterSubscriptions.unsubscribe(channel) : standaloneSubscriptions.unsubscribe(channel);
    }

    /**
     * The PubSub connection, opened now if no view opened it yet, waiting at most the command timeout (on a cluster
     * the one that routes to the nodes); package-private for tests.
     */
    StatefulRedisPubSubConnection<String, String> connectedPubSub() {
        StatefulRedisPubSubConnection<String, String> subscriber = pubSub;
        return subscriber != null ? subscriber : Await.join(openPubSub(), "Opening the PubSub connection", this);
    }


    /**
     * A command failed: on a cluster, a failure to reach a node, or a command that timed out (it may have waited in
     * the queue of a node that died), means the client's topology may be out of date (a client that started while a
     * master was down still sends its slots there after the promotion, and Lettuce's adaptive triggers cover only
     * reconnects of connections it once had and redirects), so it looks at the topology now (see
     * {@link #refreshSoon}), at most once per {@link #FAILURE_REFRESH_INTERVAL}.
     */
    void commandFailed(Throwable failure) {
        Throwable cause = Errors.unwrap(failure);
        if (cause instanceof RedisConnectionException || cause instanceof RedisCommandTimeoutException) {
            refreshSoon();
        }
    }

    /**
     * Cluster: a topology refresh now if a reachable node sees another topology (see {@link TopologyProbe}), unless
     * one was asked for in the last {@link #FAILURE_REFRESH_INTERVAL}.
     */
    private void refreshSoon() {
        if (!cluster || closed) {
            return;
        }
        if (failureRefreshes.tryAcquire()) {
            topologyProbe.refreshIfChanged();
        }
    }

    /**
     * Cluster: refreshes the topology if a node that answers sees another one (see {@link TopologyProbe}); the
     * client's periodic safety net for changes no failure or redirect announced (a slot moved while the client sent
     * nothing there, a replica added), run with each reconcile. Instead of Lettuce's periodic refresh, which opens a
     * connection to every node each time: 100 connections a second for a fleet of 1,000 clients every 30 s. Never
     * fails; standalone and Sentinel, or before the first connection (an offline start is connecting already):
     * nothing to do.
     */
    CompletionStage<Void> lookAtTopology() {
        return cluster && !closed && commandConnection != null ? topologyProbe.refreshIfChanged()
                : CompletableFuture.completedFuture(null);
    }

    /** Cluster: the {@code host:port} of the node the client's topology says serves the slot, or null (tests). */
    String nodeServing(int slot) {
        RedisClusterNode node = topology().getPartitionBySlot(slot);
        return node == null ? null : address(node);
    }

    /** Cluster: the client's topology, which Lettuce keeps current (its refreshes reload it in place). */
    private Partitions topology() {
        return ((RedisClusterClient) client).getPartitions();
    }

    /** Cluster: the cluster connection, or null before it opened. */
    @SuppressWarnings("unchecked") // every connection of this client is of strings
    private StatefulRedisClusterConnection<String, String> clusterConnection() {
        return (StatefulRedisClusterConnection<String, String>) commandConnection;
    }

    /**
     * The {@code host:port} of every node this client has connections to that all answer now (a node one of them
     * lost, or left silent, may be down: asked, it would make the asker wait out the command timeout).
     */
    private Set<String> reachableNodes() {
        Set<String> reachable = new HashSet<>();
        Set<String> lostSome = new HashSet<>();
        for (NodeState state : connections.values()) {
            (state.connected() ? reachable : lostSome).add(state.address());
        }
        reachable.removeAll(lostSome);
        return reachable;
    }

    /** Cluster: the {@code host:port} of the node the cluster connection sends keyless commands to; null if none. */
    private String defaultNode() {
        StatefulConnection<String, String> connection = commandConnection;
        NodeState state = connection == null ? null : connections.get((RedisChannelHandler<?, ?>) connection);
        return state == null ? null : state.address();
    }

    /**
     * Cluster: Lettuce's refresh of the topology, which asks every node over a new connection (never fails: a failed
     * refresh keeps the old topology). Package-private for tests.
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
        OfflineStart connecting = offlineStart;
        if (connecting != null) {
            connecting.close();
        }
        lettuceEvents.close();
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
                ClientSettings.shutdownOwn(ownResources);
            }
        }
    }


    /**
     * What the {@link Heartbeat} PINGs: the command and the PubSub connection (standalone and Sentinel) or every node
     * PubSub connection (cluster; RESP3 allows PING while subscribed). On a cluster a node that stops answering counts
     * as lost as a disconnect does: its subscriptions are re-homed (they stay orphaned, the view stale, while the node
     * holds their slots and stays silent), and its first answer starts the re-homing at once. Its command connection
     * needs no PING: its commands fail within the command timeout. A silent connection makes its node count as lost:
     * the listeners hear {@code disconnected} (views turn stale, as on a disconnect), {@link #isConnected()} is false
     * and {@link #nodes()} says why; the first answer after that makes them hear {@code connected} (views resync).
     */
    private final class HeartbeatTarget implements Heartbeat.Target<StatefulConnection<String, String>> {
        @Override
        public boolean isClosed(StatefulConnection<String, String> connection) {
            return ((RedisChannelHandler<?, ?>) connection).isClosed();
        }

        @Override
        public boolean isOpen(StatefulConnection<String, String> connection) {
            return connection.isOpen();
        }

        @Override
        public CompletionStage<?> ping(StatefulConnection<String, String> connection) {
            return connection == commandConnection ? commands.ping()
                    : ((StatefulRedisPubSubConnection<String, String>) connection).async().ping();
        }

        @Override
        public void silent(StatefulConnection<String, String> connection, Duration silentFor, long sinceNanos,
                           boolean first) {
            RedisChannelHandler<?, ?> handler = (RedisChannelHandler<?, ?>) connection;
            String node = nodeOf(handler);
            String problem = "no answer from " + node + " for " + span(silentFor);
            connections.put(handler, new NodeState(node, false,
                    clock.instant().minusNanos(clock.nanoTime() - sinceNanos), problem));
            outageLog.lost(kindOf(handler), handler, node, problem + ": treating the connection as lost until it"
                    + " answers", true);
            if (cluster) {
                lost.add(handler); // subscribing there fails at once
                if (clusterSubscriptions.orphanSubscriptionsOf(handler)) {
                    listeners.forEach(listener -> listener.disconnected(node));
                }
            } else if (first) {
                listeners.forEach(listener -> listener.disconnected(node));
            }
        }

        @Override
        public void answers(StatefulConnection<String, String> connection, boolean last) {
            RedisChannelHandler<?, ?> handler = (RedisChannelHandler<?, ?>) connection;
            String node = nodeOf(handler);
            connections.put(handler, new NodeState(node, true, clock.instant()));
            outageLog.back(kindOf(handler), handler, node);
            if (cluster) {
                // its subscriptions come back with the re-homing, which then tells the listeners
                lost.remove(handler);
                clusterSubscriptions.retrySoon();
            } else if (last) {
                listeners.forEach(listener -> listener.connected(node));
            }
        }

        /** {@code 5 s}, or {@code 500 ms} for what is not whole seconds. */
        private static String span(Duration duration) {
            return duration.toMillis() % 1_000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
        }

        private String nodeOf(RedisChannelHandler<?, ?> connection) {
            NodeState state = connections.get(connection);
            return state == null ? where : state.address();
        }
    }

    /** What the cluster subscriptions need of this backend. */
    private final class ClusterHost implements ClusterSubscriptions.Host {
        @Override
        public CompletionStage<StatefulRedisClusterPubSubConnection<String, String>> pubSub() {
            return openPubSub()
                    .thenApply(connection -> (StatefulRedisClusterPubSubConnection<String, String>) connection);
        }

        @Override
        public Partitions topology() {
            return RedisBackend.this.topology();
        }

        @Override
        public CompletionStage<Void> refreshTopology() {
            return RedisBackend.this.refreshTopology();
        }

        @Override
        public CompletionStage<Void> refreshTopologyIfChanged() {
            return topologyProbe.refreshIfChanged();
        }

        @Override
        public boolean isLost(RedisChannelHandler<?, ?> connection) {
            return lost.contains(connection);
        }

        @Override
        public void opened(StatefulRedisPubSubConnection<String, String> connection) {
            heartbeat.watch(connection);
        }

        @Override
        public void resubscribed(String channel) {
            resubscribeHandler.accept(channel);
        }

        @Override
        public void allInPlace() {
            listeners.forEach(listener -> listener.connected(where));
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
            connections.put(connection, new NodeState(node, true, clock.instant()));
            heartbeat.reconnected(asCommandsConnection(connection));
            boolean back = lost.remove(connection);
            outageLog.back(kindOf(connection), connection, node);
            if (!cluster && back && connection == pubSub) {
                standaloneSubscriptions.reconnected(pubSub);
            }
            if (!cluster || back && clusterSubscriptions.carries(connection)) {
                listeners.forEach(listener -> listener.connected(node));
            }
            if (cluster && back) {
                clusterSubscriptions.retrySoon(); // a round that found this node unreachable need not wait more
            }
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            NodeState state = connections.get(connection);
            String node = state == null ? where : state.address();
            if (closed || connection.isClosed()) {
                connections.remove(connection); // closed on purpose (a topology probe, or ours): nothing was lost
                lost.remove(connection); // a lost node connection Lettuce closed as its node left the topology
                outageLog.closed(connection, node);
                return;
            }
            outageLog.lost(kindOf(connection), connection, node, "connection closed", false);
            if (state != null) {
                connections.put(connection, new NodeState(node, false, clock.instant()));
            }
            lost.add(connection);
            if (!cluster && connection == pubSub) {
                standaloneSubscriptions.lost();
            }
            if (!cluster || clusterSubscriptions.orphanSubscriptionsOf(connection)) {
                listeners.forEach(listener -> listener.disconnected(node));
            }
        }
    }

    /** PubSub connections (the subscriptions) and the others (commands) are lost and back on their own. */
    private static OutageLog.Kind kindOf(RedisChannelHandler<?, ?> connection) {
        return connection instanceof StatefulRedisPubSubConnection<?, ?> ? OutageLog.Kind.PUBSUB
                : OutageLog.Kind.COMMAND;
    }

    @SuppressWarnings("unchecked") // every connection of this client is of strings
    private static StatefulConnection<String, String> asCommandsConnection(RedisChannelHandler<?, ?> connection) {
        return (StatefulConnection<String, String>) connection;
    }

    /**
     * A cluster node's {@code host:port} as its connections' addresses read ({@link #address(SocketAddress)}): the
     * one key that ties a node of the topology to the state of this client's connections to it.
     */
    static String address(RedisClusterNode node) {
        return node.getUri().getHost() + ":" + node.getUri().getPort();
    }

    private static String address(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getHostString() + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }
}
