package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A private cluster: a master crashes and comes back with its slots; close cleans up. */
class ClusterFaultIT {

    @Test
    void aKilledMasterRejoinsWithItsSlotsAfterRestart() throws IOException {
        try (RedisCluster cluster = TestRedis.startCluster()) {
            // given
            RedisServer master = cluster.masters().get(1);
            String idBefore = myId(master);

            // when
            cluster.kill(1);

            // then the other masters keep serving, the killed one is gone
            assertThatThrownBy(() -> Resp.connect(master.host(), master.port(), ServerInfo.TIMEOUT))
                    .isInstanceOf(ConnectException.class);
            assertThat(clusterInfo(cluster.masters().get(0))).contains("cluster_state:ok");

            // when
            cluster.restart(1);

            // then
            for (RedisServer node : cluster.masters()) {
                assertThat(clusterInfo(node)).contains("cluster_state:ok", "cluster_slots_ok:16384",
                        "cluster_known_nodes:3");
            }
            assertThat(myId(master)).isEqualTo(idBefore);
            assertThat(myNodesLine(master)).contains("myself,master").endsWith(" 5461-10922");
        }
    }

    @Test
    void closeStopsAllNodesAndDeletesTheirDirectories() {
        // given
        LocalRedisCluster cluster = (LocalRedisCluster) TestRedis.startCluster();
        List<ManagedRedisServer> nodes = cluster.nodes();
        List<Path> dirs = nodes.stream().map(ManagedRedisServer::dataDir).collect(Collectors.toList());
        List<Long> pids = nodes.stream().map(ManagedRedisServer::pid).collect(Collectors.toList());
        assertThat(dirs).allSatisfy(dir -> assertThat(dir.resolve("nodes.conf")).exists());

        // when
        cluster.close();
        cluster.close();

        // then
        assertThat(dirs).allSatisfy(dir -> assertThat(Files.exists(dir)).isFalse());
        assertThat(pids).allSatisfy(pid ->
                assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true)));
        assertThatThrownBy(() -> cluster.kill(0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("kill(0) on a closed private Redis Cluster");
    }

    private static String clusterInfo(RedisServer node) throws IOException {
        try (Resp resp = Resp.connect(node.host(), node.port(), ServerInfo.TIMEOUT)) {
            return resp.callString("CLUSTER", "INFO");
        }
    }

    private static String myId(RedisServer node) throws IOException {
        try (Resp resp = Resp.connect(node.host(), node.port(), ServerInfo.TIMEOUT)) {
            return resp.callString("CLUSTER", "MYID");
        }
    }

    private static String myNodesLine(RedisServer node) throws IOException {
        try (Resp resp = Resp.connect(node.host(), node.port(), ServerInfo.TIMEOUT)) {
            return resp.callString("CLUSTER", "NODES").lines()
                    .filter(line -> line.contains("myself")).findFirst().orElseThrow().trim();
        }
    }
}
