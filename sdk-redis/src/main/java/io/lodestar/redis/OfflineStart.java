package io.lodestar.redis;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lodestar.redis.internal.time.Backoff;
import io.lodestar.redis.internal.time.Clock;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.lang.reflect.Proxy;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;

/**
 * An offline start: Redis could not be reached when the client was created, so it keeps trying in the background,
 * with {@link #BACKOFF} between attempts, until one connects or the client is closed, and then says it is
 * connected, once. Meanwhile {@link #offlineCommands} stands in for the command connection.
 */
final class OfflineStart implements AutoCloseable {
    /**
     * 100-200 ms before the second attempt, then 250-500 ms, like Lettuce's reconnects (see ClientSettings): an app
     * started during an outage serves its snapshots until Redis answers, and converges within a second of it (an
     * attempt at a Redis that is down is a refused connection, cheap for both sides).
     */
    static final Backoff BACKOFF = new Backoff(200, 500);

    private final Clock clock;
    private final RandomGenerator random;
    private final BooleanSupplier attempt;
    private final Runnable connected;
    private final Runnable stop;
    private volatile boolean closed;
    private volatile Clock.Scheduled next;
    private int attempts;

    /**
     * @param attempt   tries to connect (blocking, bounded by the connect timeout); true once connected
     * @param connected runs once, after the attempt that connected (unless closed meanwhile)
     * @param stop      runs when the attempts stop (connected or closed): releases what runs them
     */
    OfflineStart(Clock clock, RandomGenerator random, BooleanSupplier attempt, Runnable connected, Runnable stop) {
        this.clock = clock;
        this.random = random;
        this.attempt = attempt;
        this.connected = connected;
        this.stop = stop;
    }

    /** Attempts on a thread of their own ({@code lodestar-connect}): each blocks up to the connect timeout. */
    static OfflineStart inBackground(BooleanSupplier attempt, Runnable connected) {
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("lodestar-connect", true));
        OfflineStart start = new OfflineStart(Clock.system(thread), new SplittableRandom(), attempt, connected,
                thread::shutdownNow);
        start.schedule();
        return start;
    }

    /** Schedules the next attempt (the first on {@link #inBackground}). */
    void schedule() {
        if (closed) {
            return;
        }
        try {
            next = clock.schedule(this::attempt, BACKOFF.delayMillis(attempts++, random), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopped) {
            // closed meanwhile
        }
    }

    private void attempt() {
        if (closed) {
            return;
        }
        if (!attempt.getAsBoolean()) {
            schedule();
            return;
        }
        if (!closed) {
            connected.run();
        }
        stop.run();
    }

    /** Stops the attempts (interrupting one under way). */
    @Override
    public void close() {
        closed = true;
        Clock.Scheduled pending = next;
        if (pending != null) {
            pending.cancel();
        }
        stop.run();
    }

    /** Stands in for the command connection until the first connection succeeds: every command fails at once. */
    @SuppressWarnings("unchecked")
    static RedisClusterAsyncCommands<String, String> offlineCommands(String where) {
        return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(
                RedisClusterAsyncCommands.class.getClassLoader(), new Class<?>[] {RedisClusterAsyncCommands.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "equals" -> proxy == args[0];
                            case "hashCode" -> System.identityHashCode(proxy);
                            default -> "OfflineCommands[" + where + "]";
                        };
                    }
                    RedisConnectionException failure = new RedisConnectionException("not connected: Redis could not"
                            + " be reached since this client started (retrying in the background)");
                    if (method.getReturnType().isAssignableFrom(FailedFuture.class)) {
                        return new FailedFuture<>(failure);
                    }
                    if (method.getReturnType() == void.class) {
                        return null;
                    }
                    throw failure;
                });
    }

    /** A command that failed without reaching Redis. */
    private static final class FailedFuture<T> extends CompletableFuture<T> implements RedisFuture<T> {
        private final String error;

        FailedFuture(Throwable failure) {
            this.error = failure.getMessage();
            completeExceptionally(failure);
        }

        @Override
        public String getError() {
            return error;
        }

        @Override
        public boolean await(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
