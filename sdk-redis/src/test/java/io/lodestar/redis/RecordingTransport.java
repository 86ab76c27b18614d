package io.lodestar.redis;

import io.lodestar.core.ClientClosedException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/** The view unit tests' connection to Redis: always connected, every (un)subscribe succeeds at once and is recorded. */
final class RecordingTransport implements SyncedView.Transport {
    /** The channels of every subscribe call, in order (a single channel as a list of one). */
    final List<List<String>> subscribes = new CopyOnWriteArrayList<>();
    /** The channel of every unsubscribe call, in order. */
    final BlockingQueue<String> unsubscribes = new LinkedBlockingQueue<>();
    /** Whether it reports each renewed subscription, as a cluster does (standalone by default). */
    boolean reportsResubscriptions;

    @Override
    public CompletionStage<Void> subscribe(String channel) {
        subscribes.add(List.of(channel));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> subscribe(List<String> channels) {
        subscribes.add(List.copyOf(channels));
        return CompletableFuture.completedFuture(null);
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
