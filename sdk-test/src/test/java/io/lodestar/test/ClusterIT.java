package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared three-master cluster, through Lettuce's cluster client. */
class ClusterIT {

    private static RedisCluster cluster;
    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        cluster = TestRedis.cluster();
        client = RedisClusterClient.create(
                cluster.seedUris().stream().map(RedisURI::create).collect(Collectors.toList()));
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        Lettuce.close(connection, client);
    }

    @Test
    void hasThreeMastersCoveringAllSlots() {
        // when
        List<RedisClusterNode> nodes = client.getPartitions().getPartitions();

        // then
        assertThat(nodes).hasSize(3).allMatch(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM));
        assertThat(nodes.stream().mapToInt(node -> node.getSlots().size()).sum()).isEqualTo(16384);
        assertThat(connection.sync().clusterInfo())
                .contains("cluster_state:ok", "cluster_slots_ok:16384", "cluster_known_nodes:3");
    }

    @Test
    void describesItselfWithTheSdkClusterScheme() {
        // when
        List<RedisServer> masters = cluster.masters();

        // then
        assertThat(masters).hasSize(3);
        assertThat(cluster.uri()).isEqualTo("redis-cluster://" + masters.stream()
                .map(m -> "127.0.0.1:" + m.port()).collect(Collectors.joining(",")));
        assertThat(cluster.seedUris()).containsExactlyElementsOf(
                masters.stream().map(RedisServer::uri).collect(Collectors.toList()));
        assertThat(masters).allSatisfy(m -> assertThat(m.port()).isNotEqualTo(6379));
        assertThat(RedisVersion.parse(cluster.version()).isSupported()).isTrue();
        assertThat(TestRedis.cluster()).isSameAs(cluster);
    }

    @Test
    void keysInEverySlotRangeReadBack() {
        // given: keys with hash tags that land on each of the three masters ({a}=15495, {b}=3300, {c}=7365)
        List<String> keys = List.of("ClusterIT:{a}", "ClusterIT:{b}", "ClusterIT:{c}");

        // when
        keys.forEach(key -> connection.sync().set(key, "value of " + key));

        // then
        keys.forEach(key -> assertThat(connection.sync().get(key)).isEqualTo("value of " + key));
    }

    @Test
    void shardedPubSubDeliversMessages() {
        // given
        Queue<String> received = new ConcurrentLinkedQueue<>();
        StatefulRedisClusterPubSubConnection<String, String> subscriber = client.connectPubSub();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                received.add(channel + "=" + message);
            }
        });
        subscriber.sync().ssubscribe("ClusterIT:{shard}");

        // when
        Long receivers = connection.sync().spublish("ClusterIT:{shard}", "hello");

        // then
        assertThat(receivers).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("ClusterIT:{shard}=hello"));
        subscriber.close();
    }
}
