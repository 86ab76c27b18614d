package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.lodestar.core.ConflictException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.UnavailableException;
import picocli.CommandLine;

import javax.net.ssl.SSLContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 * <p>This class routes requests (to the namespace their {@code ns} parameter names, else the first one served) and
 * maps failures to statuses; the parts live beside it: {@link RequestGuard} (who may ask what), {@link
 * ConsoleNamespace} (per namespace: {@link ConsoleApi}, the JSON endpoints; {@link ConsoleEvents}, the event stream;
 * {@link ServiceWatch}, which services it follows) and {@link AuditLog} (every write, done or refused, with who and
 * when).
 */
final class ConsoleServer implements AutoCloseable {
    private final PrintStream log;
    private final RequestGuard guard;
    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService ticks =
            Executors.newSingleThreadScheduledExecutor(Threads.daemon("lodestar-console-tick"));
    private final AuditLog audit;
    /** In the order given: the first is the one a request without {@code ns} asks about. */
    private final Map<String, ConsoleNamespace> namespaces = new LinkedHashMap<>();

    /**
     * @param clients one per namespace to serve, in the order the pages list them (the console's owner closes them)
     * @param tls     null for plain HTTP
     */
    ConsoleServer(List<LodestarClient> clients, InetSocketAddress address, RequestGuard.Access access,
                  SSLContext tls, PrintStream log) throws IOException {
        this.log = log;
        this.guard = new RequestGuard(access);
        this.audit = new AuditLog(log, clients.size() > 1,
                entry -> namespaces.get((String) entry.get("namespace")).events().push("audit", entry));
        for (LodestarClient client : clients) {
            namespaces.put(client.namespace().name(), new ConsoleNamespace(client, access.readOnly(), ticks, log));
        }
        if (tls == null) {
            this.server = HttpServer.create(address, 64);
        } else {
            HttpsServer https = HttpsServer.create(address, 64);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            this.server = https;
        }
        this.handlers = Executors.newFixedThreadPool(8, Threads.daemon("lodestar-console-http"));
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
    }

    /** Starts serving and following the registry and configs of every namespace. */
    void start() {
        namespaces.values().forEach(namespace -> namespace.start(ticks));
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

    /** @throws NotFoundException when the console does not serve the namespace asked for */
    private ConsoleNamespace namespace(Map<String, String> query) {
        String name = query.get("ns");
        if (name == null || name.isEmpty()) {
            return namespaces.values().iterator().next();
        }
        ConsoleNamespace namespace = namespaces.get(name);
        if (namespace == null) {
            throw new NotFoundException("namespace", name, "This console does not serve namespace '" + name + "'");
        }
        return namespace;
    }

    private Users.User user(HttpExchange exchange) {
        return guard.user(exchange.getRequestHeaders().getFirst(RequestGuard.TOKEN_HEADER));
    }

    private void read(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        Users.User user = user(exchange);
        if (path.equals("/api/me") && user != null) {
            Http.reply(exchange, 200, me(user, query)); // every user may ask which namespaces they may see
            return;
        }
        ConsoleNamespace namespace = namespace(query);
        RequestGuard.Refusal refused = guard.checkRead(user, namespace.name());
        if (refused != null) {
            refuse(exchange, refused);
        } else if (path.equals("/api/events")) {
            namespace.events().open(exchange);
        } else if (path.equals("/api/audit")) {
            Http.reply(exchange, 200, audit.entries(namespace.name()));
        } else {
            Http.reply(exchange, 200, namespace.api().read(path, query));
        }
    }

    /**
     * Who the token names, and their role in each namespace served that they may see, in the order served: the page
     * lists those, opens the one asked for or the first, and offers only the actions its role allows.
     */
    private Map<String, Object> me(Users.User user, Map<String, String> query) {
        List<Map<String, Object>> visible = new ArrayList<>();
        for (String name : namespaces.keySet()) {
            Users.Role role = user.roleIn(name);
            if (role != null) {
                Map<String, Object> namespace = new LinkedHashMap<>();
                namespace.put("name", name);
                namespace.put("role", guard.readOnly() ? Users.Role.READ.word() : role.word());
                visible.add(namespace);
            }
        }
        Map<String, Object> me = new LinkedHashMap<>();
        me.put("user", user.name());
        me.put("readOnly", guard.readOnly());
        me.put("namespaces", visible);
        return me;
    }

    /** Every write, done or refused, goes to the audit log, under the user the token names. */
    private void write(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        Users.User user = user(exchange);
        String who = RequestGuard.who(user, exchange.getRemoteAddress().getAddress().getHostAddress());
        String action = path.replaceFirst("^/api/", "").replace('/', '.');
        ConsoleNamespace namespace = namespace(query);
        Users.Role needed = ConsoleApi.WRITES.get(path);
        RequestGuard.Refusal refused = guard.checkWrite(user, namespace.name(), needed == null ? Users.Role.READ
                : needed);
        if (refused != null) {
            audit.record(who, namespace.name(), action, query, "refused: " + refused.reason());
            refuse(exchange, refused);
            return;
        }
        JsonNode body = Http.body(exchange);
        if (needed == null) {
            Http.reply(exchange, 404, Http.error("not_found", "no such action: " + path));
            return;
        }
        ConsoleApi.Written written;
        try {
            written = namespace.api().write(path, query, body);
        } catch (RuntimeException e) {
            audit.record(who, namespace.name(), action, query, "failed: " + ExitCodes.describe(e));
            throw e;
        }
        audit.record(who, namespace.name(), action, query, "done: " + written.detail());
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
        // namespaces before ticks (a page leaving releases services on the tick thread; once the streams are closed,
        // none does)
        namespaces.values().forEach(ConsoleNamespace::close);
        ticks.shutdownNow();
        server.stop(0);
        handlers.shutdownNow();
    }
}
