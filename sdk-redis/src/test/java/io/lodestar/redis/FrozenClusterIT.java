package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.test.RedisCluster;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Cluster master that stops answering without closing anything (SIGSTOP) is an outage for the views whose
 * subscriptions it carries: they turn stale within the command timeout and health names the node; views of other
 * shards stay fresh; after the thaw (SIGCONT) the views are fresh again and follow changes. The cluster has no
 * replicas, so no failover hides the frozen node. Every test thaws it after itself, before the clients close.
 *
 * <p>A master that is down (frozen, or killed) changes no topology, so it costs the masters that still answer no new
 * connections: while it stays down, a client asks a node it still reaches for the topology over the connection it
 * has, instead of refreshing it (which connects to every node) several times a second; a thousand clients did that
 * at once (docs/benchmarks.md, the cluster restart that failed). A client's periodic look, with each reconcile, asks
 * likewise: a change no redirect announced is in its topology after the next reconcile, and looking costs no
 * connection.
 */
class FrozenClusterIT extends NamespaceTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final UnaryOperator<LodestarOptions.Builder> SHORT_TIMEOUT = options -> options
            .commandTimeout(TIMEOUT).reconcileInterval(Duration.ofHours(1));
    private static final int SHARD = 1;
    private static final List<Integer> OTHER_MASTERS = List.of(0, 2);
    private static final List<Integer> EVERY_MASTER = List.of(0, 1, 2);
    private static final UnaryOperator<LodestarOptions.Builder> FREQUENT_RECONCILES = options -> SHORT_TIMEOUT
            .apply(options).reconcileInterval(Duration.ofMillis(200));

    private static RedisCluster cluster;
    private boolean killed;
    private RedisClient statsClient;
    private final Map<Integer, StatefulRedisConnection<String, String>> statsConnections = new TreeMap<>();

    @BeforeAll
    static void startCluster() {
        cluster = TestRedis.startCluster();
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
    void aViewWhoseSubscriptionsAreOnAFrozenMasterTurnsStaleAndHealthNamesTheNode() {
        String service = serviceIn(SHARD);
        LodestarClient client = clients.connect(SHORT_TIMEOUT);
        client.registry().register(instance(service, service + "-1"));
        assertThat(client.discovery().getInstances(service)).hasSize(1);

        frozen().freeze();

        await().atMost(Duration.ofSeconds(4)).until(() -> client.discovery().status().stale());
        assertThat(client.health().healthy()).isFalse();
        assertThat(client.health().nodes()).anySatisfy(node -> {
            assertThat(node.connected()).isFalse();
            assertThat(node.problem()).isEqualTo("no answer from 127.0.0.1:" + frozen().port() + " for 1 s");
        });
        assertThat(client.discovery().getInstances(service)).as("the last known state, served").hasSize(1);
    }

    @Test
    void aViewWithNoSubscriptionOnTheFrozenMasterStaysFresh() {
        String service = serviceIn((SHARD + 1) % 3);
        LodestarClient client = clients.connect(SHORT_TIMEOUT);
        client.registry().register(instance(service, service + "-1"));
        assertThat(client.discovery().getInstances(service)).hasSize(1);

        frozen().freeze();

        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                .until(() -> !client.discovery().status().stale());
    }

    @Test
    void afterTheThawTheViewIsFreshAgainAndFollowsChanges() {
        String service = serviceIn(SHARD);
        LodestarClient reader = clients.connect(SHORT_TIMEOUT);
        LodestarClient writer = clients.connect(SHORT_TIMEOUT);
        writer.registry().register(instance(service, service + "-1"));
        assertThat(reader.discovery().getInstances(service)).hasSize(1);
        frozen().freeze();
        await().atMost(Duration.ofSeconds(4)).until(() -> reader.discovery().status().stale());

        frozen().thaw();

        await().atMost(Duration.ofSeconds(3)).until(() -> !reader.discovery().status().stale()
                && reader.health().healthy());
        assertThat(reader.health().nodes()).allSatisfy(node -> assertThat(node.problem()).isNull());
        writer.registry().register(instance(service, service + "-2"));
        await().atMost(Duration.ofSeconds(2)).until(() -> reader.discovery().getInstances(service).size() == 2);
    }

    @Test
    void aFrozenMasterCostsTheMastersThatAnswerNoNewConnections() {
        // given a client whose view has a subscription on the master that will freeze
        LodestarClient client = aClientWatchingAServiceOnTheShard();
        Map<Integer, Long> before = connectionsReceivedByTheOtherMasters();

        // when the master stays frozen for 3 s, the view stale all the while
        frozen().freeze();
        await().atMost(Duration.ofSeconds(4)).until(() -> client.discovery().status().stale());
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                .until(() -> client.discovery().status().stale());

        // then the masters that answer received no new connection (a refresh connects to every node)
        assertThat(connectionsReceivedByTheOtherMasters()).isEqualTo(before);
    }

    @Test
    void aKilledMasterCostsTheMastersThatAnswerNoNewConnectionsAndTheViewHealsWhenItIsBack() {
        // given a client whose view has a subscription on the master that will be killed
        LodestarClient client = aClientWatchingAServiceOnTheShard();
        Map<Integer, Long> before = connectionsReceivedByTheOtherMasters();

        // when the master is killed and stays down for 3 s, the client failing to reconnect all the while
        killed = true;
        cluster.kill(SHARD);
        await().atMost(Duration.ofSeconds(2)).until(() -> client.discovery().status().stale());
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                .until(() -> client.discovery().status().stale());

        // then the masters that answer received at most Lettuce's own new connections: one refresh after five
        // failed reconnects (its adaptive trigger, at most once per 30 s), and the default connections of the
        // client's two cluster connections moving to another node if the killed one had them; not a refresh per
        // failed reconnect and re-homing round (23 at one master in 3 s before)
        Map<Integer, Long> after = connectionsReceivedByTheOtherMasters();
        before.forEach((master, received) -> assertThat(after.get(master) - received)
                .as("new connections at master %d", master).isLessThanOrEqualTo(3));

        // and once it is back, the view is fresh again
        cluster.restart(SHARD);
        killed = false;
        await().atMost(Duration.ofSeconds(5)).until(() -> !client.discovery().status().stale()
                && client.health().healthy());
    }

    @Test
    void theClientsOfOneJvmShareTheirLooksAtTheTopology() {
        // given one client with a view on the master that will freeze, frozen for 2.5 s: its looks at the topology
        List<LodestarClient> one = List.of(aClientWatchingAServiceOnTheShard());
        long byOne = looksAtTheTopologyDuringAFreeze(one);

        // when five clients with such views see the same freeze
        List<LodestarClient> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(aClientWatchingAServiceOnTheShard());
        }
        long byFive = looksAtTheTopologyDuringAFreeze(five);

        // then they ask about as often as one did (a look serves them all for 100 ms), not five times as often
        assertThat(byOne).as("CLUSTER NODES by one client").isPositive();
        assertThat(byFive).as("CLUSTER NODES by five clients, one alone asked %d times", byOne)
                .isLessThanOrEqualTo(2 * byOne + 4);
    }

    @Test
    void eachReconcileLooksAtTheTopologyOverAConnectionTheClientHas() {
        // given a client that reconciles every 200 ms, with connections to every master
        LodestarClient client = aClientWatchingAServiceOnTheShard(FREQUENT_RECONCILES);
        Map<Integer, Long> connectionsBefore = connectionsReceivedBy(EVERY_MASTER);
        long looksBefore = clusterNodesServedBy(EVERY_MASTER);

        // when 2 s pass and nothing changes
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> !client.discovery().status().stale());

        // then it looked at the topology with most reconciles, and no master received a new connection (Lettuce's
        // periodic refresh, which the look replaces, connects to every node)
        assertThat(clusterNodesServedBy(EVERY_MASTER) - looksBefore).as("CLUSTER NODES in 2 s")
                .isGreaterThanOrEqualTo(5);
        assertThat(connectionsReceivedBy(EVERY_MASTER)).isEqualTo(connectionsBefore);
    }

    @Test
    void aSlotMovedWhereTheClientSendsNothingIsInItsTopologyAfterTheNextReconcile() {
        // given a client that reconciles every 200 ms, and a slot it sends nothing to
        RedisLodestarClient client = (RedisLodestarClient) aClientWatchingAServiceOnTheShard(FREQUENT_RECONCILES);
        int slot = SlotHash.getSlot("topology-look:" + clients.namespace());
        int newShard = (cluster.shardOf(slot) + 1) % 3;
        String newOwner = "127.0.0.1:" + cluster.masters().get(newShard).port();

        // when the slot moves to another shard (no redirect tells the client)
        cluster.migrateSlot(slot, newShard);

        // then the client's topology has the slot's new owner soon after
        await().atMost(Duration.ofSeconds(2)).until(() -> newOwner.equals(client.backend.nodeServing(slot)));
    }

    /** {@code CLUSTER NODES} the masters that answer served while the shard's master was frozen for 2.5 s. */
    private long looksAtTheTopologyDuringAFreeze(List<LodestarClient> watching) {
        long before = clusterNodesServedByTheOtherMasters();
        frozen().freeze();
        await().atMost(Duration.ofSeconds(4)).until(() -> watching.stream()
                .allMatch(client -> client.discovery().status().stale()));
        await().during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(4))
                .until(() -> watching.stream().allMatch(client -> client.discovery().status().stale()));
        long served = clusterNodesServedByTheOtherMasters() - before;
        frozen().thaw();
        await().atMost(Duration.ofSeconds(5)).until(() -> watching.stream()
                .noneMatch(client -> client.discovery().status().stale()));
        return served;
    }

    private long clusterNodesServedByTheOtherMasters() {
        return clusterNodesServedBy(OTHER_MASTERS);
    }

    private long clusterNodesServedBy(List<Integer> masters) {
        long served = 0;
        for (int master : masters) {
            served += CommandStats.calls(statsConnection(master).sync()).getOrDefault("cluster|nodes", 0L);
        }
        return served;
    }

    /** Runs before the base class's: clients close only once the node runs again. */
    @AfterEach
    void thawWhateverHappened() {
        if (killed) {
            cluster.restart(SHARD);
        }
        frozen().thaw();
        statsConnections.values().forEach(StatefulRedisConnection::close);
        if (statsClient != null) {
            statsClient.shutdown();
        }
    }

    /** A client with a view of a service on the shard, that has sent commands to every master (so has connections). */
    private LodestarClient aClientWatchingAServiceOnTheShard() {
        return aClientWatchingAServiceOnTheShard(SHORT_TIMEOUT);
    }

    private LodestarClient aClientWatchingAServiceOnTheShard(UnaryOperator<LodestarOptions.Builder> options) {
        String service = serviceIn(SHARD);
        LodestarClient client = clients.connect(options);
        client.registry().register(instance(service, service + "-1"));
        assertThat(client.discovery().getInstances(service)).hasSize(1);
        for (int shard = 0; shard < 3; shard++) {
            assertThat(client.directDiscovery().getInstances(serviceIn(shard))).hasSizeLessThanOrEqualTo(1);
        }
        return client;
    }

    /**
     * {@code total_connections_received} of each master but the shard's, by index, read over connections opened
     * once per test (so the readings add none).
     */
    private Map<Integer, Long> connectionsReceivedByTheOtherMasters() {
        return connectionsReceivedBy(OTHER_MASTERS);
    }

    private Map<Integer, Long> connectionsReceivedBy(List<Integer> masters) {
        Map<Integer, Long> received = new TreeMap<>();
        for (int master : masters) {
            String stats = statsConnection(master).sync().info("stats");
            received.put(master, stats.lines().filter(line -> line.startsWith("total_connections_received:"))
                    .map(line -> Long.parseLong(line.substring(line.indexOf(':') + 1).strip()))
                    .findFirst().orElseThrow());
        }
        return received;
    }

    private StatefulRedisConnection<String, String> statsConnection(int master) {
        if (statsClient == null) {
            statsClient = RedisClient.create();
        }
        return statsConnections.computeIfAbsent(master,
                index -> statsClient.connect(RedisURI.create(cluster.masters().get(index).uri())));
    }

    private static RedisServer frozen() {
        return cluster.masters().get(SHARD);
    }

    /** A service id of this test's namespace whose channel lives in the shard. */
    private String serviceIn(int shard) {
        for (int i = 0; ; i++) {
            String service = "svc" + i;
            if (cluster.shardOf(SlotHash.getSlot(keys().service(service).channel())) == shard) {
                return service;
            }
        }
    }
}
