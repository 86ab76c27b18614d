package io.lodestar.cli;

import io.lodestar.core.Initial;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarException;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.ServicesListener;
import io.lodestar.core.Subscription;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * One subscription per service of the namespace, following its service index (for {@code watch} and the console),
 * while someone watches ({@link #watchAll()} until {@link #releaseAll()}): subscribed when a service gets its first
 * instance, closed when it loses its last one, and all closed when nobody watches any more. Without the closes, a
 * namespace whose services come and go, or a console nobody looks at, would keep a subscription, and the SDK a Redis
 * channel, for every service it ever had; released, the SDK drops the channel once nobody reads the service for its
 * idle timeout. The index itself (one channel) is followed from {@link #start} to {@link #close}.
 */
final class ServiceWatch implements AutoCloseable {
    private final LodestarClient client;
    private final Executor subscriber;
    private final Function<String, ServiceListener> listeners;
    private final Map<String, Subscription> watched = new ConcurrentHashMap<>();
    /** Only on the subscriber thread: whether services are followed now. */
    private boolean active;
    /** Once closed, a late {@link #watchAll()} (a page connecting while the console stops) subscribes nothing. */
    private volatile boolean closed;
    private volatile Subscription index;

    /**
     * @param subscriber one thread, where subscriptions are made and closed in the order of the index's changes
     *                   (subscribing waits for Redis: never on the SDK's listener thread)
     * @param listeners  the listener of each service's events
     */
    ServiceWatch(LodestarClient client, Executor subscriber, Function<String, ServiceListener> listeners) {
        this.client = client;
        this.subscriber = subscriber;
        this.listeners = listeners;
    }

    /** Starts following the index; {@code onChange} hears of every change of the set of services. */
    void start(ServicesListener onChange) {
        index = client.discovery().subscribeServices(change -> {
            subscriber.execute(() -> {
                if (active) {
                    change.added().forEach(this::watch);
                    change.removed().forEach(this::release);
                }
            });
            onChange.onChange(change);
        });
    }

    /**
     * Follows every service that has an instance, from now until {@link #releaseAll()}. Each subscription delivers
     * the service's current state first: read from Redis again when the SDK dropped it meanwhile.
     */
    void watchAll() {
        subscriber.execute(() -> {
            active = !closed;
            if (!active) {
                return;
            }
            try {
                client.discovery().getServices().forEach(this::watch);
            } catch (LodestarException offline) {
                // subscribeServices reports the services once Redis answers
            }
        });
    }

    /** Closes every service's subscription, until {@link #watchAll()} again. */
    void releaseAll() {
        subscriber.execute(() -> {
            active = false;
            watched.keySet().forEach(this::release);
        });
    }

    /** The services watched now, sorted. */
    List<String> services() {
        return watched.keySet().stream().sorted().toList();
    }

    private void watch(String service) {
        watched.computeIfAbsent(service, id -> client.discovery().subscribe(id, listeners.apply(id),
                Initial.DELIVER));
    }

    private void release(String service) {
        Subscription subscription = watched.remove(service);
        if (subscription != null) {
            subscription.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        Subscription following = index;
        if (following != null) {
            following.close();
        }
        watched.values().forEach(Subscription::close);
        watched.clear();
    }
}
