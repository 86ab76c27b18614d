package io.lodestar.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Which shard channels the one PubSub connection of a standalone client subscribes, and when. */
class StandaloneSubscriptionsIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private RedisClient client;
    private StatefulRedisPubSubConnection<String, String> connection;
    private final PingBarrier barrier = new PingBarrier();
    private StandaloneSubscriptions subscriptions;

    @BeforeEach
    void connect() {
        client = RedisClient.create(TestRedis.standalone().uri());
        connection = client.connectPubSub();
        subscriptions = new StandaloneSubscriptions(barrier, () -> CompletableFuture.completedFuture(connection),
                () -> CompletableFuture.completedFuture(connection), TIMEOUT);
    }

    @AfterEach
    void close() {
        client.shutdown();
    }

    @Test
    void aSubscribeWhileTheConnectionIsLostWaitsForItToBeBackInsteadOfSendingWhatLettuceWouldReject()
            throws Exception {
        // given a connection that was lost (the command connection came back first and a resync starts)
        subscriptions.lost();

        // when a view subscribes two channels
        CompletableFuture<Void> subscribed = subscriptions.subscribe(List.of("{t}:a", "{t}:b")).toCompletableFuture();

        // then nothing is sent until the connection is back; then the channels Lettuce did not renew are
        subscriptions.confirmed("{t}:a"); // Lettuce renewed this one
        assertThat(barrier.sent.sum()).as("SSUBSCRIBEs sent while lost").isZero();
        assertThat(subscribed).isNotDone();
        subscriptions.reconnected(connection);
        subscribed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(barrier.sent.sum()).as("SSUBSCRIBEs sent once back").isEqualTo(1);
    }

    @Test
    void aChannelConfirmedOnTheCurrentConnectionIsNotSentAgain() throws Exception {
        // given a channel subscribed and confirmed
        subscriptions.subscribe(List.of("{t}:a")).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        subscriptions.confirmed("{t}:a");

        // when it is subscribed again
        subscriptions.subscribe(List.of("{t}:a")).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        // then only the first subscribe was sent
        assertThat(barrier.sent.sum()).isEqualTo(1);
    }
}
