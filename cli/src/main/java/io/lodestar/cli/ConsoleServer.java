package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.lodestar.core.ConflictException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.Subscription;
import io.lodestar.core.UnavailableException;
import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The web console: one page and a small JSON API over the SDK's local view, with changes pushed to the page as
 * server-sent events (the page never polls).
 *
 * <p>Served by the JDK's own {@code com.sun.net.httpserver} (the exported, supported {@code jdk.httpserver}
 * module): an operator page for a few people needs routing of a dozen paths and one streaming response, which it
 * does without adding a web server and its dependencies to the jar.
 *
 * <p>This class routes requests and maps failures to statuses; the parts live beside it: {@link RequestGuard} (who
 * may ask what), {@link ConsoleApi} (the JSON endpoints), {@link ConsoleEvents} (the event stream), {@link AuditLog}
 * (every write, done or refused, with who and when) and {@link ServiceWatch} (which services it follows).
 */
final class ConsoleServer implements AutoCloseable {
    private final LodestarClient client;
    private final PrintStream log;
    private final RequestGuard guard;
    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService ticks =
            Executors.newSingleThreadScheduledExecutor(Threads.daemon("lodestar-console-tick"));
    private final ConsoleEvents events;
    private final AuditLog audit;
    private final ConsoleApi api;
    private final ServiceWatch services;
    private volatile Subscription configs;

    ConsoleServer(LodestarClient client, InetSocketAddress address, RequestGuard.Access access, PrintStream log)
            throws IOException {
        this.client = client;
        this.log = log;
        this.guard = new RequestGuard(access);
        this.events = new ConsoleEvents(this::state, this::stale, log, this::watched);
        this.audit = new AuditLog(log, entry -> events.push("audit", entry));
        this.services = new ServiceWatch(client, ticks, id -> event -> serviceChanged(id));
        this.api = new ConsoleApi(client, access.readOnly(), audit);
        this.server = HttpServer.create(address, 64);
        this.handlers = Executors.newFixedThreadPool(8, Threads.daemon("lodestar-console-http"));
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
    }

    private Map<String, Object> state() {
        return api.state();
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

    /** Starts serving and following the registry and configs. */
    void start() {
        services.start(change -> events.pushState());
        configs = client.config().subscribeAll(event -> events.push("config",
                Map.of("id", event.configId(), "version", event.version())));
        events.start(ticks);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            RequestGuard.Refusal foreign = guard.checkOrigin(exchange.getRequestHeaders().getFirst("Host"),
                    exchange.getRequestHeaders().getFirst("Origin"));
            if (foreign != null) {
                refuse(exchange, foreign);
                return;
            }
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            Map<String, String> query = Http.query(exchange.getRequestURI());
            if (method.equals("GET")) {
                switch (path) {
                    case "/", "/index.html" -> resource(exchange, "index.html", "text/html; charset=utf-8");
                    case "/app.js" -> resource(exchange, "app.js", "text/javascript; charset=utf-8");
                    case "/app.css" -> resource(exchange, "app.css", "text/css; charset=utf-8");
                    default -> read(exchange, path, query);
                }
                return;
            }
            if (method.equals("POST")) {
                write(exchange, path, query);
                return;
            }
            Http.reply(exchange, 405, Http.error("method", "use GET or POST"));
        } catch (NotFoundException e) {
            Http.reply(exchange, 404, Http.error("not_found", e.getMessage()));
        } catch (ConflictException e) {
            Map<String, Object> body = Http.error("conflict", e.getMessage());
            body.put("currentVersion", e.currentVersion());
            Http.reply(exchange, 409, body);
        } catch (InvalidArgumentException | IllegalArgumentException | CommandLine.TypeConversionException e) {
            Http.reply(exchange, 400, Http.error("bad_request", e.getMessage()));
        } catch (UnavailableException e) {
            Http.reply(exchange, 503, Http.error("unavailable", ExitCodes.describe(e)));
        } catch (RuntimeException e) {
            log.println(Instant.now() + " console request failed: " + LogText.escape(ExitCodes.describe(e)));
            Http.reply(exchange, 500, Http.error("internal", ExitCodes.describe(e)));
        }
    }

    private void read(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        RequestGuard.Refusal refused = guard.checkRead(exchange.getRequestHeaders()
                .getFirst(RequestGuard.TOKEN_HEADER));
        if (refused != null) {
            refuse(exchange, refused);
        } else if (path.equals("/api/events")) {
            events.open(exchange);
        } else {
            Http.reply(exchange, 200, api.read(path, query));
        }
    }

    /** Every write, done or refused, goes to the audit log. */
    private void write(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        String who = RequestGuard.who(exchange.getRequestHeaders().getFirst(RequestGuard.OPERATOR_HEADER),
                exchange.getRemoteAddress().getAddress().getHostAddress());
        String action = path.replaceFirst("^/api/", "").replace('/', '.');
        RequestGuard.Refusal refused = guard.checkWrite(exchange.getRequestHeaders()
                .getFirst(RequestGuard.TOKEN_HEADER));
        if (refused != null) {
            audit.record(who, action, query, "refused: " + refused.reason());
            refuse(exchange, refused);
            return;
        }
        JsonNode body = Http.body(exchange);
        if (!ConsoleApi.WRITES.contains(path)) {
            Http.reply(exchange, 404, Http.error("not_found", "no such action: " + path));
            return;
        }
        ConsoleApi.Written written;
        try {
            written = api.write(path, query, body);
        } catch (RuntimeException e) {
            audit.record(who, action, query, "failed: " + ExitCodes.describe(e));
            throw e;
        }
        audit.record(who, action, query, "done: " + written.detail());
        Http.reply(exchange, 200, written.result());
    }

    private static void refuse(HttpExchange exchange, RequestGuard.Refusal refusal) throws IOException {
        Http.reply(exchange, refusal.status(), Http.error(refusal.error(), refusal.message()));
    }

    private static void resource(HttpExchange exchange, String name, String type) throws IOException {
        try (InputStream in = ConsoleServer.class.getResourceAsStream("console/" + name)) {
            if (in == null) {
                Http.reply(exchange, 404, Http.error("not_found", name));
                return;
            }
            byte[] bytes = in.readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.getResponseHeaders().set("Content-Security-Policy",
                    "default-src 'self'; frame-ancestors 'none'");
            exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        if (configs != null) {
            configs.close();
        }
        // services before events (their events are pushed), events before ticks (a page leaving releases services
        // on the tick thread; once the streams are closed, none does)
        services.close();
        events.close();
        ticks.shutdownNow();
        server.stop(0);
        handlers.shutdownNow();
    }
}
