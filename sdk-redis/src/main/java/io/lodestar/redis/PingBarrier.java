package io.lodestar.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * SSUBSCRIBE of channels followed by a PING on the same connection; completes when the PING has its reply.
 *
 * <p>Why the PING: Lettuce (7.7, RESP3) completes an SSUBSCRIBE on the first {@code ssubscribe} confirmation it
 * sees while that command is the oldest one waiting, whichever channel (and command) the confirmation is for, so
 * an SSUBSCRIBE of many channels completes on its first one, and the other confirmations complete the SSUBSCRIBEs
 * sent after it (a single channel's too: its stage could complete before Redis even read it, and a view would
 * load a topic not subscribed yet). A PING's reply is a normal reply, which confirmations never complete, and
 * Redis answers in order: when it comes, Redis has run every command sent before it on that connection,
 * the SSUBSCRIBE included, so each channel is subscribed. One command per batch instead of one per channel:
 * Redis and Lettuce handle 2 commands where they handled 256.
 */
final class PingBarrier {
    /** SSUBSCRIBE commands sent (tests). */
    final LongAdder sent = new LongAdder();

    /** Subscribes the channels on the connection: completes when Redis ran the SSUBSCRIBE and the PING. */
    CompletionStage<Void> subscribe(StatefulRedisPubSubConnection<String, String> connection, List<String> channels) {
        sent.increment();
        var async = connection.async();
        RedisFuture<Void> subscribed = async.ssubscribe(channels.toArray(String[]::new));
        RedisFuture<String> barrier = async.ping();
        // The SSUBSCRIBE's own stage says only whether it failed: a failure (an error reply) completes it, and it
        // comes before the PING's reply.
        return barrier.toCompletableFuture().thenCompose(pong -> subscribed.toCompletableFuture()
                .thenApply(ignored -> (Void) null));
    }
}
