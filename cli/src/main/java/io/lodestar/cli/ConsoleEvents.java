package io.lodestar.cli;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the console pushes to its pages as server-sent events ({@code /api/events}): the state (services, staleness)
 * whenever it changes, a service's instances on each of its events, config changes and audit entries. One thread
 * makes the events, so each page gets them in order; {@link EventStreams} writes them, each page on its own thread.
 */
final class ConsoleEvents implements AutoCloseable {
    /** One line per event: an SSE {@code data:} field ends at a line break. */
    private static final ObjectWriter SSE_JSON = Output.Mappers.JSON.writer().without(SerializationFeature.INDENT_OUTPUT);

    private final Supplier<Map<String, Object>> state;
    private final BooleanSupplier stale;
    private final PrintStream log;
    private final ExecutorService pushes = Executors.newSingleThreadExecutor(Threads.daemon("lodestar-console-push"));
    private final EventStreams streams;
    private volatile boolean lastStale;

    /**
     * @param state the state a page shows, as {@code /api/state} answers it
     * @param stale   whether the console's view is stale now (Redis unreachable)
     * @param watched hears {@code true} when the first page connects and {@code false} when the last one leaves
     *                (see {@link EventStreams}); it must not wait
     */
    ConsoleEvents(Supplier<Map<String, Object>> state, BooleanSupplier stale, PrintStream log,
                  Consumer<Boolean> watched) {
        this.state = state;
        this.stale = stale;
        this.log = log;
        this.streams = new EventStreams(Threads.daemon("lodestar-console-sse"), log, watched);
    }

    /**
     * Ticks once a second on {@code ticks}: the staleness banner changes without an event, and SSE needs a
     * keep-alive.
     */
    void start(ScheduledExecutorService ticks) {
        ticks.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    private void tick() {
        try {
            boolean now = stale.getAsBoolean();
            if (now || now != lastStale) {
                lastStale = now;
                pushState();
            } else {
                byte[] keepAlive = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);
                pushes.execute(() -> streams.send(keepAlive));
            }
        } catch (RuntimeException e) {
            log.println(Instant.now() + " console tick failed: " + LogText.escape(ExitCodes.describe(e)));
        }
    }

    /** Without a page there is nobody to tell: the state is not read (reading a service would keep it in the view). */
    void pushState() {
        if (streams.openCount() == 0) {
            return; // a page that connects gets the state first
        }
        pushes.execute(() -> {
            try {
                send("state", state.get());
            } catch (RuntimeException e) {
                log.println(Instant.now() + " console could not read its view: "
                        + LogText.escape(ExitCodes.describe(e)));
            }
        });
    }

    void push(String event, Object data) {
        pushes.execute(() -> send(event, data));
    }

    /** Only on the push thread: events in order; each stream's own thread writes them (see EventStreams). */
    private void send(String event, Object data) {
        streams.send(event(event, data).getBytes(StandardCharsets.UTF_8));
    }

    private static String event(String event, Object data) {
        try {
            return "event: " + event + "\ndata: " + SSE_JSON.writeValueAsString(data) + "\n\n";
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Answers with a stream of events that starts with the state, or refuses when too many are open. */
    void open(HttpExchange exchange) throws IOException {
        if (streams.openCount() >= EventStreams.MAX_STREAMS) {
            Http.reply(exchange, 503, Http.error("too_many_streams", "this console serves at most "
                    + EventStreams.MAX_STREAMS + " event streams at once"));
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(200, 0);
        // on the push thread, so the stream's first state comes before every later event and after every earlier one
        pushes.execute(() -> {
            try {
                byte[] first = ("retry: 1000\n" + event("state", state.get())).getBytes(StandardCharsets.UTF_8);
                if (!streams.open(exchange, first)) {
                    exchange.close();
                }
            } catch (RuntimeException e) {
                log.println(Instant.now() + " console could not read its view: "
                        + LogText.escape(ExitCodes.describe(e)));
                exchange.close(); // the page reconnects
            }
        });
    }

    @Override
    public void close() {
        pushes.shutdownNow();
        streams.close();
    }
}
