package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.Subscription;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.ServiceEvent;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One namespace a console serves: its SDK client, its JSON endpoints ({@link ConsoleApi}), the services it follows
 * ({@link ServiceWatch}) and the event stream of the pages that show it ({@link ConsoleEvents}). A console serves one
 * or several; each page shows one at a time.
 */
final class ConsoleNamespace implements AutoCloseable {
    private final LodestarClient client;
    private final ConsoleApi api;
    private final ConsoleEvents events;
    private final ServiceWatch services;
    private volatile Subscription configs;

    /**
     * @param ticks one thread: the staleness ticks, and where services are subscribed and released (waits for Redis)
     */
    ConsoleNamespace(LodestarClient client, boolean readOnly, ScheduledExecutorService ticks, PrintStream log) {
        this.client = client;
        this.api = new ConsoleApi(client, readOnly);
        this.events = new ConsoleEvents(api::state, this::stale, log, this::watched);
        this.services = new ServiceWatch(client, ticks, id -> event -> serviceChanged(id, event));
    }

    String name() {
        return client.namespace().name();
    }

    ConsoleApi api() {
        return api;
    }

    ConsoleEvents events() {
        return events;
    }

    private boolean stale() {
        return client.discovery().status().stale() || client.config().status().stale();
    }

    /** Services are followed over Redis only while a page watches; one that connects gets a fresh read. */
    private void watched(boolean watched) {
        if (watched) {
            services.watchAll();
        } else {
            services.releaseAll();
        }
    }

    private void serviceChanged(String service, ServiceEvent event) {
        events.push("service", api.service(service));
        Map<String, Object> removal = removal(event);
        if (removal != null) {
            events.push("removed", removal);
        }
        events.pushState();
    }

    /**
     * How an instance left, for the page to say (the service's new list cannot tell an evict from a deregister or an
     * expiry): {@code {"service", "id", "change": "evicted" | "deregistered" | "expired", "revision"}}, else null.
     */
    private static Map<String, Object> removal(ServiceEvent event) {
        if (event instanceof InstanceDeregistered e) {
            return Map.of("service", e.serviceId(), "id", e.instanceId(),
                    "change", e.evicted() ? "evicted" : "deregistered", "revision", e.revision());
        }
        if (event instanceof InstanceExpired e) {
            return Map.of("service", e.serviceId(), "id", e.instanceId(), "change", "expired",
                    "revision", e.revision());
        }
        return null;
    }

    /** Starts following the registry and configs. */
    void start(ScheduledExecutorService ticks) {
        services.start(change -> events.pushState());
        configs = client.config().subscribeAll(event -> events.push("config",
                Map.of("id", event.configId(), "version", event.version())));
        events.start(ticks);
    }

    /** Closes what it started; the client stays open (whoever created it closes it). */
    @Override
    public void close() {
        if (configs != null) {
            configs.close();
        }
        // services before events (their events are pushed)
        services.close();
        events.close();
    }
}
