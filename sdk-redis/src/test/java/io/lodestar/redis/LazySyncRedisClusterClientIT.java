package io.lodestar.redis;

import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.StatefulRedisClusterConnectionImpl;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lodestar.core.LodestarOptions;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster client Lodestar makes leaves the synchronous API of its cluster connection and of each node
 * connection to their first use (Lettuce makes one per connection, the topology's look at every seed included: a
 * fifth of a one-shot CLI command's CPU on a cluster), and that API still works when something asks.
 */
class LazySyncRedisClusterClientIT {
    private final ClientResources resources = DefaultClientResources.create();
    private RedisClusterClient client;

    @AfterEach
    void shutDown() {
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    @Test
    void theClusterConnectionAndItsNodeConnectionsMakeNoSyncApiUntilAskedAndThenOneThatWorks()
            throws ReflectiveOperationException {
        // given the cluster connection of the client Lodestar makes, used through its async API on every master
        client = (RedisClusterClient) ClientSettings.create(LodestarOptions.builder(TestRedis.cluster().uri()).build(),
                resources);
        StatefulRedisClusterConnection<String, String> connection = client.connect();
        for (int i = 0; i < 30; i++) {
            connection.async().get("lazy-sync-it:" + i).toCompletableFuture().join();
        }
        RedisClusterNode node = client.getPartitions().iterator().next();
        StatefulRedisConnection<String, String> nodeConnection = connection.getConnection(node.getNodeId());

        // then neither it nor a node connection has made a synchronous API
        assertThat(madeSyncApi(StatefulRedisClusterConnectionImpl.class, connection)).isNull();
        assertThat(madeSyncApi(StatefulRedisConnectionImpl.class, nodeConnection)).isNull();

        // when something asks for them, it gets ones that work, the same ones every time
        assertThat(connection.sync().set("lazy-sync-it", "yes")).isEqualTo("OK");
        assertThat(connection.sync().get("lazy-sync-it")).isEqualTo("yes");
        assertThat(connection.sync()).isSameAs(connection.sync());
        assertThat(nodeConnection.sync().ping()).isEqualTo("PONG");
        assertThat(nodeConnection.sync()).isSameAs(nodeConnection.sync());
        connection.close();
    }

    /** What Lettuce's own field for the synchronous API holds (it makes it in the connection's constructor). */
    private static Object madeSyncApi(Class<?> declaring, Object connection) throws ReflectiveOperationException {
        Field sync = declaring.getDeclaredField("sync");
        sync.setAccessible(true);
        return sync.get(connection);
    }
}
