package io.lodestar.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscribe's stage completes only once Redis confirmed every channel it names: a view loads a topic right
 * after, and an event published before Redis subscribed the channel would be lost. Lettuce (7.7, RESP3) completes
 * an SSUBSCRIBE on the first confirmation of any channel that arrives while it is the oldest command waiting, so a
 * batch subscribed in one command would complete the subscribes sent after it early; the backend follows each
 * SSUBSCRIBE with a PING and completes on its reply (see {@link RedisBackend#subscribe(List)}).
 */
class SubscribeConfirmedIT extends NamespaceTest {
    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void eachSubscribeCompletesAfterRedisConfirmedItsOwnChannelsEvenBehindALargerBatch() throws Exception {
        // given a client's backend, and a listener on its PubSub connection noting every channel Redis confirmed
        RedisLodestarClient client = (RedisLodestarClient) clients.connect();
        RedisBackend backend = client.backend;
        Set<String> confirmed = ConcurrentHashMap.newKeySet();
        backend.connectedPubSub().addListener(new RedisPubSubAdapter<>() {
            @Override
            public void ssubscribed(String channel, long count) {
                confirmed.add(channel);
            }
        });
        String prefix = clients.namespace() + ":confirm:";
        List<String> batch = IntStream.range(0, 2_000).mapToObj(i -> prefix + "batch-" + i).toList();
        List<String> pair = List.of(prefix + "pair-1", prefix + "pair-2");
        String single = prefix + "single";

        // when a batch of 2,000 channels is subscribed, and right behind it a pair and a single channel
        Map<String, Boolean> allConfirmedAtCompletion = new ConcurrentHashMap<>();
        CompletableFuture<?> batchDone = backend.subscribe(batch).toCompletableFuture()
                .whenComplete((ok, failure) -> allConfirmedAtCompletion.put("batch", confirmed.containsAll(batch)));
        CompletableFuture<?> pairDone = backend.subscribe(pair).toCompletableFuture()
                .whenComplete((ok, failure) -> allConfirmedAtCompletion.put("pair", confirmed.containsAll(pair)));
        CompletableFuture<?> singleDone = backend.subscribe(single).toCompletableFuture()
                .whenComplete((ok, failure) -> allConfirmedAtCompletion.put("single", confirmed.contains(single)));
        CompletableFuture.allOf(batchDone, pairDone, singleDone).get(30, TimeUnit.SECONDS);

        // then each completed after Redis had confirmed every one of its channels, and Redis has them all
        assertThat(allConfirmedAtCompletion).containsExactlyInAnyOrderEntriesOf(Map.of("batch", true, "pair", true,
                "single", true));
        assertThat(redis().pubsubShardNumsub(pair.get(0), pair.get(1), single, batch.get(1_999)).values())
                .containsOnly(1L);
    }

    @Test
    void aChannelRedisConfirmedIsNotSubscribedAgainUntilItIsUnsubscribed() throws Exception {
        // given a channel subscribed through a client's backend
        RedisBackend backend = ((RedisLodestarClient) clients.connect()).backend;
        String channel = clients.namespace() + ":confirm:again";
        backend.subscribe(channel).toCompletableFuture().get(10, TimeUnit.SECONDS);
        long sent = backend.subscribeCommands.sum();

        // when it is subscribed again: nothing is sent
        backend.subscribe(channel).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(backend.subscribeCommands.sum()).isEqualTo(sent);

        // when it is unsubscribed and at once subscribed again: its own SSUBSCRIBE follows the SUNSUBSCRIBE
        CompletableFuture<Void> unsubscribed = backend.unsubscribe(channel).toCompletableFuture();
        backend.subscribe(channel).toCompletableFuture().get(10, TimeUnit.SECONDS);
        unsubscribed.get(10, TimeUnit.SECONDS);

        // then Redis has it subscribed
        assertThat(backend.subscribeCommands.sum()).isEqualTo(sent + 1);
        assertThat(redis().pubsubShardNumsub(channel)).containsEntry(channel, 1L);
    }
}
