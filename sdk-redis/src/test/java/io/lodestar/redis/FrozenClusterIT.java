package io.lodestar.redis;

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
import java.util.function.UnaryOperator;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Cluster master that stops answering without closing anything (SIGSTOP) is an outage for the views whose
 * subscriptions it carries: they turn stale within the command timeout and health names the node; views of other
 * shards stay fresh; after the thaw (SIGCONT) the views are fresh again and follow changes. The cluster has no
 * replicas, so no failover hides the frozen node. Every test thaws it after itself, before the clients close.
 */
class FrozenClusterIT extends NamespaceTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final UnaryOperator<LodestarOptions.Builder> SHORT_TIMEOUT = options -> options
            .commandTimeout(TIMEOUT).reconcileInterval(Duration.ofHours(1));
    private static final int SHARD = 1;

    private static RedisCluster cluster;

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

    /** Runs before the base class's: clients close only once the node runs again. */
    @AfterEach
    void thawWhateverHappened() {
        frozen().thaw();
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
