package io.lodestar.redis;

import io.lodestar.core.ClientClosedException;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The view unit tests' connection to Redis: always connected, every (un)subscribe is recorded and succeeds, at once
 * unless the test holds subscribes ({@link #holdSubscribes}).
 */
final class RecordingTransport implements SyncedView.Transport {
    /** The channels of every subscribe call, in order (a single channel as a list of one). */
    final List<List<String>> subscribes = new CopyOnWriteArrayList<>();
    /** The channel of every unsubscribe call, in order. */
    final BlockingQueue<String> unsubscribes = new LinkedBlockingQueue<>();
    /** Whether it reports each renewed subscription, as a cluster does (standalone by default). */
    boolean reportsResubscriptions;
    /** While true, a subscribe is done only when the test says so ({@link #completeSubscribes}). */
    volatile boolean holdSubscribes;
    private final Queue<CompletableFuture<Void>> held = new ConcurrentLinkedQueue<>();

    @Override
    public CompletionStage<Void> subscribe(String channel) {
        return subscribe(List.of(channel));
    }

    @Override
    public CompletionStage<Void> subscribe(List<String> channels) {
        subscribes.add(List.copyOf(channels));
        if (!holdSubscribes) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> subscribed = new CompletableFuture<>();
        held.add(subscribed);
        return subscribed;
    }

    /** How many subscribes wait for {@link #completeSubscribes}. */
    int heldSubscribes() {
        return held.size();
    }

    /** Completes the subscribes held so far, in order. */
    void completeSubscribes() {
        CompletableFuture<Void> subscribed;
        while ((subscribed = held.poll()) != null) {
            subscribed.complete(null);
        }
    }

    @Override
    public CompletionStage<Void> unsubscribe(String channel) {
        unsubscribes.add(channel);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public boolean isConnected() {
        return true;
    }

    @Override
    public boolean reportsResubscriptions() {
        return reportsResubscriptions;
    }

    @Override
    public Duration timeout() {
        return Duration.ofSeconds(2);
    }

    @Override
    public String where() {
        return "redis://test";
    }

    @Override
    public ClientClosedException closedException() {
        return new ClientClosedException("test", "redis://test");
    }
}
