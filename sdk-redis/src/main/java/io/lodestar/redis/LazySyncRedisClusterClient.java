package io.lodestar.redis;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.cluster.ClusterPushHandler;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.StatefulRedisClusterConnectionImpl;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.json.JsonParser;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * A Cluster Lettuce client whose cluster connection and node connections make their synchronous API on first use,
 * as {@link LazySyncRedisClient} does for standalone: a one-shot CLI command on a cluster made a JDK proxy for each
 * connection it opened, the topology's look at every seed node included (a fifth of the command's CPU in a profile of
 * {@code lodestar services}). The PubSub connections of a cluster are made without such an extension point and stay
 * as Lettuce makes them. Built on {@code newStatefulRedisConnection} and {@code newStatefulRedisClusterConnection},
 * the same in every supported Lettuce version.
 */
final class LazySyncRedisClusterClient extends RedisClusterClient {

    LazySyncRedisClusterClient(ClientResources resources, List<RedisURI> seeds) {
        super(resources, seeds);
    }

    @Override
    protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(RedisChannelWriter channelWriter,
            PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout, Supplier<JsonParser> parser) {
        return new LazySyncRedisClient.Connection<>(channelWriter, pushHandler, codec, timeout, parser);
    }

    @Override
    protected <V, K> StatefulRedisClusterConnectionImpl<K, V> newStatefulRedisClusterConnection(
            RedisChannelWriter channelWriter, ClusterPushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout,
            Supplier<JsonParser> parser) {
        return new ClusterConnection<>(channelWriter, pushHandler, codec, timeout, parser);
    }

    /** A cluster connection whose {@link #sync()} is made on first call. */
    static final class ClusterConnection<K, V> extends StatefulRedisClusterConnectionImpl<K, V> {
        private final LazySyncRedisClient.MadeOnFirstUse<RedisAdvancedClusterCommands<K, V>> lazySync =
                new LazySyncRedisClient.MadeOnFirstUse<>(super::newRedisAdvancedClusterCommandsImpl);

        ClusterConnection(RedisChannelWriter writer, ClusterPushHandler pushHandler, RedisCodec<K, V> codec,
                Duration timeout, Supplier<JsonParser> parser) {
            super(writer, pushHandler, codec, timeout, parser);
        }

        /** Called by the constructor, where Lettuce makes it eagerly: nothing yet. */
        @Override
        protected RedisAdvancedClusterCommands<K, V> newRedisAdvancedClusterCommandsImpl() {
            return null;
        }

        @Override
        public RedisAdvancedClusterCommands<K, V> sync() {
            return lazySync.get();
        }
    }
}
