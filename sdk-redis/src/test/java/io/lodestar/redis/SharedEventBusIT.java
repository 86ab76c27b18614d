package io.lodestar.redis;

import io.lettuce.core.resource.ClientResources;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Clients that share Lettuce's resources (a JVM that runs several, as the fleet harness does) hear Lettuce's events
 * through one subscription to its event bus between them, not one each: each event of a restart used to be handed
 * to every client of the JVM by a task of its own. Each client still takes from it what concerns it.
 */
class SharedEventBusIT extends PrivateRedisTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    @Test
    void clientsSharingResourcesHearLettucesEventsThroughOneSubscriptionThatEndsWithTheLastClient() throws Exception {
        ClientResources resources = ClientResources.create();
        List<LodestarClient> crowd = new ArrayList<>();
        try {
            // given ten clients built on the same resources
            for (int i = 0; i < 10; i++) {
                crowd.add(client(redisUri(), resources));
            }

            // then one subscription to the resources' bus carries the events to all ten
            assertThat(SharedEventBus.hearers(resources.eventBus())).isEqualTo(10);

            // when they close, then the last one ends the subscription
            crowd.forEach(LodestarClient::close);
            assertThat(SharedEventBus.hearers(resources.eventBus())).isZero();
        } finally {
            crowd.forEach(LodestarClient::close);
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFailedReconnectIsAnOutageOnlyForTheClientsThatLostAConnection() throws Exception {
        ClientResources resources = ClientResources.create();
        List<LodestarClient> crowd = new ArrayList<>();
        try (RedisServer other = TestRedis.startStandalone()) {
            // given three clients of this test's Redis and one of another Redis, all on the same resources
            for (int i = 0; i < 3; i++) {
                crowd.add(client(redisUri(), resources));
            }
            LodestarClient elsewhere = client(other.uri(), resources);
            crowd.add(elsewhere);

            // when this test's Redis is killed (Lettuce fails to reconnect the three clients' connections)
            redis.kill();

            // then each of the three sees an outage, and the client of the other Redis, which lost nothing, none
            for (LodestarClient client : crowd.subList(0, 3)) {
                await().atMost(BOUND).until(() -> outages(client).toNote() != null);
            }
            assertThat(outages(elsewhere).toNote()).isNull();
            redis.restart();
        } finally {
            crowd.forEach(LodestarClient::close);
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        }
    }

    private LodestarClient client(String uri, ClientResources resources) {
        LodestarOptions options = LodestarOptions.builder(uri).namespace(clients.namespace())
                .commandTimeout(Duration.ofSeconds(2)).reconcileInterval(Clients.RECONCILE_OFF).build();
        return RedisLodestar.builder(options).clientResources(resources).build();
    }

    private static OutageEvidence outages(LodestarClient client) {
        return ((RedisLodestarClient) client).backend.outages();
    }
}
