package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lodestar.core.LodestarOptions;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The standalone client Lodestar makes leaves each connection's synchronous API to its first use (Lettuce makes it
 * with every connection: a third of a one-shot CLI command's CPU), and that API still works when something asks.
 */
class LazySyncRedisClientIT {
    private final ClientResources resources = DefaultClientResources.create();
    private final RedisClient client = (RedisClient) ClientSettings.create(
            LodestarOptions.builder(TestRedis.standalone().uri()).build(), resources);

    @AfterEach
    void shutDown() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    @Test
    void aConnectionMakesNoSyncApiUntilAskedAndThenOneThatWorks() throws ReflectiveOperationException {
        // given a command connection of the client Lodestar makes, used through its async API
        StatefulRedisConnection<String, String> connection = client.connect();
        assertThat(connection.async().ping().toCompletableFuture().join()).isEqualTo("PONG");

        // then it has made no synchronous API
        assertThat(madeSyncApi(connection)).isNull();

        // when something asks for it, it gets one that works, the same one every time
        assertThat(connection.sync().ping()).isEqualTo("PONG");
        assertThat(connection.sync()).isSameAs(connection.sync());
        connection.close();
    }

    @Test
    void aPubSubConnectionMakesNoSyncApiUntilAskedAndThenOneThatSubscribes() throws ReflectiveOperationException {
        // given a PubSub connection of the client Lodestar makes
        StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub();
        List<String> heard = new CopyOnWriteArrayList<>();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                heard.add(message);
            }
        });
        assertThat(madeSyncApi(pubSub)).isNull();

        // when it subscribes through its synchronous API and a message is published
        pubSub.sync().subscribe("lazy-sync-it");
        StatefulRedisConnection<String, String> publisher = client.connect();
        publisher.async().publish("lazy-sync-it", "hello").toCompletableFuture().join();

        // then the message arrives, and the API stays the same one
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("hello"));
        assertThat(pubSub.sync()).isSameAs(pubSub.sync());
        publisher.close();
        pubSub.close();
    }

    /** What Lettuce's own field for the synchronous API holds (it makes it in the connection's constructor). */
    private static Object madeSyncApi(Object connection) throws ReflectiveOperationException {
        Field sync = StatefulRedisConnectionImpl.class.getDeclaredField("sync");
        sync.setAccessible(true);
        return sync.get(connection);
    }
}
