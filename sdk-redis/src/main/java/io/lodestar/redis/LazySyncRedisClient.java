package io.lodestar.redis;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.json.JsonParser;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.pubsub.PubSubEndpoint;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnectionImpl;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * A standalone (and Sentinel) Lettuce client whose connections make their synchronous API on first use instead of
 * when they are made.
 *
 * <p>Why: Lettuce makes each connection's {@code sync()} API eagerly, a JDK proxy of its command interfaces (hundreds
 * of methods) and a table of their async twins. Lodestar only uses the async API, and making that proxy was about a
 * third of a one-shot CLI command's CPU (0.17 s of 0.49 s in a profile of {@code lodestar services}; docs/cli.md
 * "Start-up"). Anything that does call {@code sync()} on a connection (Lettuce's own Sentinel and master/replica
 * code, a user's code) still gets the same API, made then. Built on the extension points Lettuce documents for this
 * ({@code newStatefulRedisConnection} and {@code newStatefulRedisPubSubConnection}, "subclasses may override"), which
 * have the same shape in every supported Lettuce version. {@link LazySyncRedisClusterClient} does the same on a
 * cluster.
 */
final class LazySyncRedisClient extends RedisClient {

    LazySyncRedisClient(ClientResources resources, RedisURI uri) {
        super(resources, uri);
    }

    @Override
    protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(RedisChannelWriter channelWriter,
            PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
        return new Connection<>(channelWriter, pushHandler, codec, timeout, getOptions().getJsonParser());
    }

    @Override
    protected <K, V> StatefulRedisPubSubConnectionImpl<K, V> newStatefulRedisPubSubConnection(
            PubSubEndpoint<K, V> endpoint, RedisChannelWriter channelWriter, RedisCodec<K, V> codec, Duration timeout) {
        return new PubSubConnection<>(endpoint, channelWriter, codec, timeout);
    }

    /** A command connection whose {@link #sync()} is made on first call. */
    static final class Connection<K, V> extends StatefulRedisConnectionImpl<K, V> {
        private final MadeOnFirstUse<RedisCommands<K, V>> lazySync =
                new MadeOnFirstUse<>(super::newRedisSyncCommandsImpl);

        Connection(RedisChannelWriter writer, PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout,
                Supplier<JsonParser> jsonParser) {
            super(writer, pushHandler, codec, timeout, jsonParser);
        }

        /** Called by the constructor, where Lettuce makes it eagerly: nothing yet. */
        @Override
        protected RedisCommands<K, V> newRedisSyncCommandsImpl() {
            return null;
        }

        @Override
        public RedisCommands<K, V> sync() {
            return lazySync.get();
        }
    }

    /** A PubSub connection whose {@link #sync()} is made on first call. */
    static final class PubSubConnection<K, V> extends StatefulRedisPubSubConnectionImpl<K, V> {
        private final MadeOnFirstUse<RedisPubSubCommands<K, V>> lazySync =
                new MadeOnFirstUse<>(super::newRedisSyncCommandsImpl);

        PubSubConnection(PubSubEndpoint<K, V> endpoint, RedisChannelWriter writer, RedisCodec<K, V> codec,
                Duration timeout) {
            super(endpoint, writer, codec, timeout);
        }

        /** Called by the constructor, where Lettuce makes it eagerly: nothing yet. */
        @Override
        protected RedisPubSubCommands<K, V> newRedisSyncCommandsImpl() {
            return null;
        }

        @Override
        public RedisPubSubCommands<K, V> sync() {
            return lazySync.get();
        }
    }

    /** A value made by its first {@link #get()}; two first calls at once make two equal ones, and one is kept. */
    static final class MadeOnFirstUse<T> {
        private final Supplier<T> make;
        private volatile T made;

        MadeOnFirstUse(Supplier<T> make) {
            this.make = make;
        }

        T get() {
            T value = made;
            if (value == null) {
                value = make.get();
                made = value;
            }
            return value;
        }
    }
}
