package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.Subscription;

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
        this.services = new ServiceWatch(client, ticks, id -> event -> serviceChanged(id));
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

    private void serviceChanged(String service) {
        events.push("service", api.service(service));
        events.pushState();
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
