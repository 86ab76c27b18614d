package io.lodestar.redis;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisCluster;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A master killed with renewals its replica never got (replication is asynchronous): the promoted replica holds
 * older deadlines, some already past when the master died. That failover is an outage for the owners of its shard:
 * it expires none of their live instances.
 */
class FailoverExpiryIT extends NamespaceTest {
    private static final Duration TTL = Duration.ofSeconds(1);
    /** How long the master acknowledges renewals its replica never gets: three TTLs. */
    private static final Duration UNREPLICATED = Duration.ofSeconds(3);

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = TestRedis.startClusterWithReplicas();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    String redisUri() {
        return cluster.uri();
    }

    @Test
    void aMasterKilledWithRenewalsItsReplicaNeverGotExpiresNoLiveInstance() {
        // given a client that sweeps every 500 ms, and a live owner's instances with a TTL of 1 s in a service of
        // shard 0 (the owner's own rounds are an hour apart, so only what the sweeper sees and does counts)
        String service = serviceIn(0);
        RedisLodestarClient sweeper = (RedisLodestarClient) clients.connect(options -> options
                .reconcileInterval(Duration.ofHours(1)).sweepInterval(Duration.ofMillis(500)));
        await().atMost(Duration.ofSeconds(5)).until(() -> sweeper.sweeper().rounds.sum() > 0);
        LodestarClient owner = clients.connect(options -> options.reconcileInterval(Duration.ofHours(1))
                .sweepInterval(Duration.ofHours(1)));
        for (int i = 1; i <= 3; i++) {
            owner.registry().register(ServiceInstance.builder(service, service + "-" + i).host("h").port(i)
                    .ttl(TTL).build());
        }
        long revision = owner.directDiscovery().getSnapshot(service).revision();
        int slot = SlotHash.getSlot(keys().service(service).instances());
        String[] shard = masterAndReplicaOf(slot);
        RedisServer killed = null;
        try (Node master = new Node(shard[0]); Node replica = new Node(shard[1])) {
            // and a replica that stops getting the master's writes: its link is cut, and it cannot log in again
            replica.commands.configSet("masterauth", "not-the-password");
            master.commands.clientKill(KillArgs.Builder.typeSlave());
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    replica.commands.info("replication").contains("master_link_status:down"));
            // while the owner renews on the master for three TTLs
            await().pollDelay(UNREPLICATED).atMost(UNREPLICATED.plusSeconds(1)).until(() -> true);

            // when the master dies and the replica, with deadlines three TTLs old, takes over
            try {
                killed = cluster.killMasterAndAwaitPromotion(0);
            } finally {
                replica.commands.configSet("masterauth", "");
            }
            Instant promoted = Instant.now();

            // then the owner renews them again, and over a window longer than TTL + two sweeps nothing expired
            // them: an expiry and the owner's re-registration would each have moved the service's revision
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Instant renewed = owner.health().registrations().lastRenewalAt();
                return renewed != null && renewed.isAfter(promoted);
            });
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
            assertThat(owner.directDiscovery().getSnapshot(service).revision()).isEqualTo(revision);
            assertThat(owner.directDiscovery().getInstances(service)).hasSize(3);
        } finally {
            if (killed != null) {
                killed.restart();
            }
        }
    }

    /** A service id of this test's namespace whose keys live in the shard. */
    private String serviceIn(int shard) {
        for (int i = 0; ; i++) {
            String service = "svc" + i;
            if (cluster.shardOf(SlotHash.getSlot(keys().service(service).instances())) == shard) {
                return service;
            }
        }
    }

    /** {@code host:port} of the master serving the slot and of its replica, from CLUSTER NODES. */
    private static String[] masterAndReplicaOf(int slot) {
        try (Node any = new Node(cluster.seedUris().get(0).replaceFirst("^redis://", ""))) {
            List<String[]> nodes = Arrays.stream(any.commands.clusterNodes().split("\n"))
                    .map(line -> line.trim().split(" ")).filter(fields -> fields.length >= 8).toList();
            String[] master = nodes.stream().filter(fields -> fields[2].contains("master")
                    && !fields[2].contains("fail") && servesSlot(fields, slot)).findFirst().orElseThrow();
            String[] replica = nodes.stream().filter(fields -> fields[3].equals(master[0])
                    && !fields[2].contains("fail")).findFirst().orElseThrow();
            return new String[] {address(master), address(replica)};
        }
    }

    private static boolean servesSlot(String[] fields, int slot) {
        for (int i = 8; i < fields.length; i++) {
            String[] range = fields[i].split("-");
            if (!range[0].startsWith("[") && Integer.parseInt(range[0]) <= slot
                    && slot <= Integer.parseInt(range[range.length - 1])) {
                return true;
            }
        }
        return false;
    }

    private static String address(String[] fields) {
        return fields[1].substring(0, fields[1].indexOf('@'));
    }

    /** A plain connection to one cluster node. */
    private static final class Node implements AutoCloseable {
        final RedisClient client;
        final StatefulRedisConnection<String, String> connection;
        final RedisCommands<String, String> commands;

        Node(String hostPort) {
            client = RedisClient.create("redis://" + hostPort);
            connection = client.connect();
            commands = connection.sync();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }
}
