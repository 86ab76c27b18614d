package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.IOException;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A private cluster with a replica per master: manual failover, a killed master replaced by its replica, a
 * migrated slot. Each test leaves the cluster healthy, so they share one.
 */
class ClusterReplicasIT {

    private static RedisCluster cluster;
    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void start() {
        cluster = TestRedis.startClusterWithReplicas();
        client = RedisClusterClient.create(
                cluster.seedUris().stream().map(RedisURI::create).collect(Collectors.toList()));
        connection = client.connect();
    }

    @AfterAll
    static void stop() {
        Lettuce.close(connection, client);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void startsWithAnInSyncReplicaForEveryMaster() throws IOException {
        // then
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).hasSize(3);
        assertThat(clusterInfo(cluster.masters().get(0))).contains("cluster_state:ok", "cluster_known_nodes:6");
        for (RedisServer node : List.of(cluster.masters().get(0), cluster.replicas().get(0))) {
            assertThat(role(node)).isIn("master", "slave");
        }
        assertThat(cluster.seedUris()).hasSize(6);
    }

    @Test
    void aManualFailoverSwapsTheRolesInTheShardAndKeepsTheData() throws IOException {
        // given
        String key = "ClusterReplicasIT:failover";
        int shard = cluster.shardOf(SlotHash.getSlot(key));
        connection.sync().set(key, "v");
        RedisServer masterBefore = currentMaster(shard);

        // when
        cluster.failover(shard);

        // then
        assertThat(role(masterBefore)).isEqualTo("slave");
        assertThat(role(currentMaster(shard))).isEqualTo("master");
        assertThat(currentMaster(shard).port()).isNotEqualTo(masterBefore.port());
        client.refreshPartitions();
        assertThat(connection.sync().get(key)).isEqualTo("v");
    }

    @Test
    void twoManualFailoversInARowBothTakeEffect() throws IOException {
        // given: masters refuse a second vote for the same shard within 2 x node timeout
        int shard = 2;
        RedisServer first = currentMaster(shard);

        // when
        cluster.failover(shard);
        cluster.failover(shard);

        // then
        assertThat(currentMaster(shard).port()).isEqualTo(first.port());
        assertThat(clusterInfo(first)).contains("cluster_state:ok");
    }

    @Test
    void aKilledMasterIsReplacedByItsReplicaAndRejoinsAsReplica() throws IOException {
        // given
        String key = "ClusterReplicasIT:kill";
        int shard = cluster.shardOf(SlotHash.getSlot(key));
        writeToMasterAndReplica(shard, key, "v");

        // when
        RedisServer killed = cluster.killMasterAndAwaitPromotion(shard);

        // then
        assertThat(role(currentMaster(shard))).isEqualTo("master");
        assertThat(currentMaster(shard).port()).isNotEqualTo(killed.port());
        client.refreshPartitions();
        assertThat(connection.sync().get(key)).isEqualTo("v");

        // when
        killed.restart();

        // then
        assertThat(role(killed)).isEqualTo("slave");
        assertThat(clusterInfo(killed)).contains("cluster_state:ok", "cluster_known_nodes:6");
    }

    @Test
    void aMigratedSlotMovesWithItsKeys() {
        // given
        String key = "ClusterReplicasIT:migrate";
        int slot = SlotHash.getSlot(key);
        int from = cluster.shardOf(slot);
        int to = (from + 1) % 3;
        connection.sync().set(key, "v");

        // when
        cluster.migrateSlot(slot, to);

        // then
        assertThat(cluster.shardOf(slot)).isEqualTo(to);
        client.refreshPartitions();
        assertThat(connection.sync().get(key)).isEqualTo("v");
    }

    @Test
    void aClusterWithoutReplicasSaysSoOnFailover() {
        assertThatThrownBy(() -> TestRedis.cluster().failover(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failover(0) needs replicas")
                .hasMessageContaining("TestRedis.startClusterWithReplicas()");
    }

    /** The running node of the shard that calls itself master. */
    private static RedisServer currentMaster(int shard) throws IOException {
        for (RedisServer node : List.of(cluster.masters().get(shard), cluster.replicas().get(shard))) {
            try {
                if (role(node).equals("master")) {
                    return node;
                }
            } catch (IOException down) {
                // killed: not the master
            }
        }
        throw new IOException("shard " + shard + " has no master");
    }

    /** Writes at the master and WAITs until the replica has it, so a kill cannot lose it. */
    private static void writeToMasterAndReplica(int shard, String key, String value) throws IOException {
        RedisServer master = currentMaster(shard);
        try (Resp resp = Resp.connect(master.host(), master.port(), ServerInfo.TIMEOUT)) {
            resp.call("SET", key, value);
            assertThat(resp.callLong("WAIT", "1", "2000")).isEqualTo(1);
        }
    }

    private static String role(RedisServer node) throws IOException {
        try (Resp resp = Resp.connect(node.host(), node.port(), ServerInfo.TIMEOUT)) {
            return (String) ((List<?>) resp.call("ROLE")).get(0);
        }
    }

    private static String clusterInfo(RedisServer node) throws IOException {
        try (Resp resp = Resp.connect(node.host(), node.port(), ServerInfo.TIMEOUT)) {
            return resp.callString("CLUSTER", "INFO");
        }
    }
}
