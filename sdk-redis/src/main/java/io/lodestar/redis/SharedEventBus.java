package io.lodestar.redis;

import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.EventBus;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * One subscription to the event bus of a Lettuce {@code ClientResources} for every client that shares them, handing
 * each event it keeps (a failed reconnect, a cluster topology change) to each of those clients in turn.
 *
 * <p>Why not a subscription per client: Lettuce's bus hands every event to every subscriber through a queue and a
 * task of its own on the resources' event executors, and a Redis restart makes every connection publish a dozen events
 * or more (disconnected, each reconnect attempt and failure, connected, activated). With 500 clients in one JVM that
 * was 500 deliveries of each of those events, about 18 % of the JVM's CPU while it reconnected after a restart (a
 * profile of {@code jmh/fleet.sh}, docs/benchmarks.md "Fleet"), the time every client waited to be fresh again. A
 * client still reacts to the events of every connection on the resources (the bus names no client in them), so each
 * one makes that reaction cheap when it has nothing lost (see {@code RedisBackend#heard}).
 */
final class SharedEventBus {
    private static final Logger log = LoggerFactory.getLogger(SharedEventBus.class);
    /** The shared subscriptions, by bus (identity: a bus is not a value); guarded by itself. */
    private static final Map<EventBus, SharedEventBus> BY_BUS = new IdentityHashMap<>();

    private final EventBus bus;
    private final CopyOnWriteArrayList<Consumer<Event>> hearers = new CopyOnWriteArrayList<>();
    private final Disposable subscription;

    private SharedEventBus(EventBus bus) {
        this.bus = bus;
        this.subscription = bus.get()
                .filter(event -> event instanceof ReconnectFailedEvent || event instanceof ClusterTopologyChangedEvent)
                // fails only when the resources' event executors are shut down (closing): nothing left to hear
                .subscribe(this::deliver, stopped -> log.debug("No longer hearing Lettuce's events: {}",
                        stopped.toString()));
    }

    /** Hands {@code hearer} every failed reconnect and topology change of the bus until the returned handle closes. */
    static Hearing listen(EventBus bus, Consumer<Event> hearer) {
        synchronized (BY_BUS) {
            SharedEventBus shared = BY_BUS.computeIfAbsent(bus, SharedEventBus::new);
            shared.hearers.add(hearer);
            return new Hearing(shared, hearer);
        }
    }

    /** How many clients hear {@code bus} through its shared subscription (0: it has none; tests). */
    static int hearers(EventBus bus) {
        synchronized (BY_BUS) {
            SharedEventBus shared = BY_BUS.get(bus);
            return shared == null ? 0 : shared.hearers.size();
        }
    }

    private void deliver(Event event) {
        for (Consumer<Event> hearer : hearers) {
            try {
                hearer.accept(event);
            } catch (RuntimeException e) {
                // one client's failure must not keep the event from the others
                log.warn("A client failed to handle Lettuce's {}: {}", event.getClass().getSimpleName(), e.toString());
            }
        }
    }

    /** One client's place on a shared subscription; closing it ends the subscription when no client is left. */
    static final class Hearing implements AutoCloseable {
        private final SharedEventBus shared;
        private final Consumer<Event> hearer;

        private Hearing(SharedEventBus shared, Consumer<Event> hearer) {
            this.shared = shared;
            this.hearer = hearer;
        }

        @Override
        public void close() {
            synchronized (BY_BUS) {
                if (shared.hearers.remove(hearer) && shared.hearers.isEmpty()) {
                    BY_BUS.remove(shared.bus);
                    shared.subscription.dispose();
                }
            }
        }
    }
}
