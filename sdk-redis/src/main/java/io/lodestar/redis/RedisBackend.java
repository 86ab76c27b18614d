package io.lodestar.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
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
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarException;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Violation;
import io.lodestar.core.UnavailableException;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * The Redis connections of one client: a command connection and a PubSub connection, for standalone, Sentinel
 * and Cluster alike. Commands fail fast while disconnected (no silent queueing), Lettuce reconnects by itself,
 * and every (re)connect and disconnect is reported to the listeners so views can resync and say they are stale.
 *
 * <p>Events use sharded PubSub (SPUBLISH/SSUBSCRIBE). On a cluster a shard channel must be subscribed at the
 * node that owns its slot, so {@link #subscribe(String)} routes by slot.
 */
final class RedisBackend implements AutoCloseable {
    /** Hears connection changes of every connection of this backend. */
    interface ConnectionListener {
        void connected();

        void disconnected();
    }

    /**
     * RESP2: Lodestar needs nothing of RESP3, and Redis counts a RESP3 subscriber as a "normal" client, so
     * operators' {@code CLIENT KILL TYPE pubsub} and pubsub output-buffer limits would miss our subscriptions.
     */
    private static final ProtocolVersion PROTOCOL = ProtocolVersion.RESP2;

    private final AbstractRedisClient client;
    private final StatefulConnection<String, String> commandConnection;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final boolean cluster;
    private final String where;
    private final Duration timeout;
    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    private volatile BiConsumer<String, String> messageHandler = (channel, message) -> { };

    private final ClientResources ownResources;

    private RedisBackend(LodestarOptions options, ClientResources resources) {
        this.ownResources = resources;
        this.where = options.redactedRedisUri();
        this.timeout = options.commandTimeout();
        String uri = options.redisUri();
        this.cluster = uri.toLowerCase(Locale.ROOT).matches("rediss?-cluster://.*");
        SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        try {
            if (cluster) {
                List<RedisURI> seeds = clusterSeeds(uri, options.clientName());
                RedisClusterClient clusterClient = resources == null ? RedisClusterClient.create(seeds)
                        : RedisClusterClient.create(resources, seeds);
                // Node connections open lazily, so rejecting commands while "not connected" would reject the first
                // command to every node: a cluster queues them instead, bounded by the command timeout.
                clusterClient.setOptions(ClusterClientOptions.builder()
                        .socketOptions(socket).timeoutOptions(timeouts).protocolVersion(PROTOCOL)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                        .requestQueueSize(10_000)
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enableAllAdaptiveRefreshTriggers()
                                .enablePeriodicRefresh(Duration.ofSeconds(30))
                                .build())
                        .build());
                this.client = clusterClient;
                clusterClient.addListener(new StateListener());
                StatefulRedisClusterConnection<String, String> connection = clusterClient.connect(StringCodec.UTF8);
                this.commandConnection = connection;
                this.commands = connection.async();
                StatefulRedisClusterPubSubConnection<String, String> clusterPubSub =
                        clusterClient.connectPubSub(StringCodec.UTF8);
                clusterPubSub.setNodeMessagePropagation(true);
                clusterPubSub.addListener(new RedisClusterPubSubAdapter<>() {
                    @Override
                    public void smessage(RedisClusterNode node, String channel, String message) {
                        messageHandler.accept(channel, message);
                    }
                });
                this.pubSub = clusterPubSub;
            } else {
                RedisURI redisUri = RedisURI.create(uri);
                if (redisUri.getClientName() == null) {
                    redisUri.setClientName(options.clientName());
                }
                RedisClient standalone = resources == null ? RedisClient.create(redisUri)
                        : RedisClient.create(resources, redisUri);
                standalone.setOptions(ClientOptions.builder()
                        .socketOptions(socket).timeoutOptions(timeouts).protocolVersion(PROTOCOL)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .build());
                this.client = standalone;
                standalone.addListener(new StateListener());
                var connection = standalone.connect(StringCodec.UTF8);
                this.commandConnection = connection;
                this.commands = connection.async();
                this.pubSub = standalone.connectPubSub(StringCodec.UTF8);
                this.pubSub.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void smessage(String channel, String message) {
                        messageHandler.accept(channel, message);
                    }
                });
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidArgumentException(new Violation("redisUri", options.redactedRedisUri(),
                    "a valid Redis URI (" + LodestarOptions.redact(String.valueOf(e.getMessage())) + ")"));
        } catch (RuntimeException e) {
            throw new UnavailableException("Cannot connect to Redis at " + where + ": "
                    + LodestarOptions.redact(String.valueOf(e.getMessage())), e);
        }
    }

    /**
     * @param options   the options
     * @param resources Lettuce resources this backend owns and shuts down on close (e.g. with a latency
     *                  recorder), or null for the client's defaults
     */
    static RedisBackend connect(LodestarOptions options, ClientResources resources) {
        try {
            return new RedisBackend(options, resources);
        } catch (RuntimeException e) {
            if (resources != null) {
                resources.shutdown();
            }
            throw e;
        }
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

    RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    boolean isCluster() {
        return cluster;
    }

    String where() {
        return where;
    }

    Duration timeout() {
        return timeout;
    }

    boolean isConnected() {
        return commandConnection.isOpen() && pubSub.isOpen();
    }

    void onMessage(BiConsumer<String, String> handler) {
        this.messageHandler = handler;
    }

    void addConnectionListener(ConnectionListener listener) {
        listeners.add(listener);
    }

    /** Subscribes a shard channel (at the node owning its slot on a cluster); completes when Redis confirmed. */
    CompletionStage<Void> subscribe(String channel) {
        return CompletableFuture.completedFuture(null)
                .thenCompose(ignored -> shardConnection(channel).async().ssubscribe(channel));
    }

    /** Unsubscribes a shard channel. */
    CompletionStage<Void> unsubscribe(String channel) {
        return CompletableFuture.completedFuture(null)
                .thenCompose(ignored -> shardConnection(channel).async().sunsubscribe(channel));
    }

    private StatefulRedisPubSubConnection<String, String> shardConnection(String channel) {
        if (!cluster) {
            return pubSub;
        }
        StatefulRedisClusterPubSubConnection<String, String> clusterPubSub =
                (StatefulRedisClusterPubSubConnection<String, String>) pubSub;
        RedisClusterNode owner = clusterPubSub.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel));
        if (owner == null) {
            throw new UnavailableException("No cluster node at " + where + " owns the slot of " + channel);
        }
        return clusterPubSub.getConnection(owner.getNodeId());
    }

    @Override
    public void close() {
        try {
            pubSub.close();
            commandConnection.close();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            if (ownResources != null) {
                ownResources.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    /** Wraps a failure of a connection-level operation. */
    LodestarException unavailable(String operation, Throwable failure) {
        return Errors.translate(failure, operation, where, timeout);
    }

    private final class StateListener implements RedisConnectionStateListener {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
            listeners.forEach(ConnectionListener::connected);
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            listeners.forEach(ConnectionListener::disconnected);
        }
    }
}
