package io.lodestar.redis;

import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Standalone and Sentinel: the shard channels subscribed on the one PubSub connection. A channel Redis already
 * confirmed on the current connection is not subscribed again: after a reconnect Lettuce renews every subscription
 * itself, before any command of ours, and a resync that subscribed them all once more made Redis and Lettuce handle
 * every confirmation twice (10,000 per resync of 10,000 services). A subscribe waits for the PING sent behind
 * Lettuce's renewal, so its confirmations are in by then; a channel it did not renew (Redis refused it) is
 * subscribed as any other. While the connection is lost, a subscribe waits for it to be back (at most the command
 * timeout): sent before, Lettuce would reject it and the view would back off, then send it once more, although
 * Lettuce's renewal was about to confirm every channel (a reconnect of the command connection comes first and
 * starts the resync).
 */
final class StandaloneSubscriptions {
    private final PingBarrier barrier;
    private final Supplier<CompletionStage<StatefulRedisPubSubConnection<String, String>>> pubSub;
    private final Supplier<CompletionStage<StatefulRedisPubSubConnection<String, String>>> askedFor;
    private final Duration timeout;
    /** The channels Redis confirmed on the PubSub connection since it last connected; a channel taken out first. */
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    /**
     * Completes when Redis has run Lettuce's own re-subscription after the connection's last reconnect (the reply
     * of a PING sent behind it), so {@link #confirmed} holds every channel it renewed; pending while the connection
     * is lost.
     */
    private volatile CompletableFuture<?> renewed = CompletableFuture.completedFuture(null);

    /**
     * @param pubSub  the PubSub connection, opened if there is none yet (fails when it cannot be)
     * @param askedFor the PubSub connection opened or being opened, else null (nothing was ever subscribed)
     * @param timeout how long a subscribe waits for a lost connection to be back before it is tried anyway
     */
    StandaloneSubscriptions(PingBarrier barrier,
                            Supplier<CompletionStage<StatefulRedisPubSubConnection<String, String>>> pubSub,
                            Supplier<CompletionStage<StatefulRedisPubSubConnection<String, String>>> askedFor,
                            Duration timeout) {
        this.barrier = barrier;
        this.pubSub = pubSub;
        this.askedFor = askedFor;
        this.timeout = timeout;
    }

    /** Redis confirmed a channel (Lettuce's renewal's, or ours). */
    void confirmed(String channel) {
        confirmed.add(channel);
    }

    /** The PubSub connection is lost: it holds no subscription any more. */
    void lost() {
        confirmed.clear();
        renewed = new CompletableFuture<>();
    }

    /** The PubSub connection is back: Lettuce wrote its re-subscription before telling us, so a PING now follows it. */
    void reconnected(StatefulRedisPubSubConnection<String, String> connection) {
        CompletableFuture<?> waiting = renewed;
        CompletableFuture<?> renewal = connection.async().ping().toCompletableFuture();
        renewed = renewal;
        renewal.whenComplete((pong, failure) -> waiting.complete(null));
    }

    /** Subscribes the channels not confirmed on this connection yet (see {@link PingBarrier}). */
    CompletionStage<Void> subscribe(List<String> channels) {
        return renewed.copy().completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS)
                .handle((renewal, notRenewed) -> null).thenCompose(ignored -> {
            List<String> missing = channels.stream().filter(channel -> !confirmed.contains(channel)).toList();
            return missing.isEmpty() ? CompletableFuture.completedFuture(null)
                    : pubSub.get().thenCompose(connection -> barrier.subscribe(connection, missing));
        });
    }

    CompletionStage<Void> unsubscribe(String channel) {
        confirmed.remove(channel); // before the SUNSUBSCRIBE: a subscribe from now on must send its own
        // after a subscribe still waiting for the connection to open, so it cannot subscribe the channel again
        CompletionStage<StatefulRedisPubSubConnection<String, String>> connection = askedFor.get();
        if (connection == null) {
            return CompletableFuture.completedFuture(null); // none asked for: nothing was ever subscribed
        }
        return connection.thenCompose(opened -> opened.async().sunsubscribe(channel));
    }
}
