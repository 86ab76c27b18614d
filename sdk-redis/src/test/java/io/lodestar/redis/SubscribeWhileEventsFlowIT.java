package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A view subscribes to new topics while events of the topics it holds keep arriving on the same connection.
 * Over RESP2 a shard message that arrives while an SSUBSCRIBE waits for its confirmation was taken by Lettuce for
 * that confirmation: the event was lost (a gap) and the subscribe completed with the message's text (a
 * ClassCastException in the read). Reconcile is off, so nothing papers over either.
 */
class SubscribeWhileEventsFlowIT extends NamespaceTest {
    private static final Duration OFF = Duration.ofDays(1);

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void subscribingToNewServicesLosesNoEventOfAServiceAlreadyHeld() throws Exception {
        // given a reader holding "busy", and a writer changing "busy" as fast as it can
        LodestarClient writer = clients.connect();
        writer.registry().register(instance("busy", "busy-1"));
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options -> options.reconcileInterval(OFF));
        assertThat(reader.discovery().getInstances("busy")).hasSize(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        CompletableFuture<Integer> writes = CompletableFuture.supplyAsync(() -> {
            int written = 0;
            while (writing.get()) {
                writer.registry().updateMetadata("busy", "busy-1", Map.of("n", Integer.toString(++written)), Set.of());
            }
            return written;
        });

        // when the reader subscribes to 200 more services meanwhile
        for (int i = 0; i < 200; i++) {
            assertThat(reader.discovery().getInstances("quiet-" + i)).isEmpty();
        }
        writing.set(false);
        int written = writes.get(30, TimeUnit.SECONDS);

        // then every read succeeded (above), no event of "busy" went missing, and its view is the last write
        String last = Integer.toString(written);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(reader.discovery().getInstances("busy").get(0).metadata()).containsEntry("n", last));
        assertThat(written).isGreaterThan(50);
        assertThat(reader.serviceView.gaps.sum()).isZero();
    }
}
