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
import io.lodestar.core.ViewStatus;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The web console: one page and a small JSON API over the SDK's local view, with changes pushed to the page as
 * server-sent events (the page never polls).
 *
 * <p>Served by the JDK's own {@code com.sun.net.httpserver} (the exported, supported {@code jdk.httpserver}
 * module): an operator page for a few people needs routing of a dozen paths and one streaming response, which it
 * does without adding a web server and its dependencies to the jar.
 *
 * <p>Safety (the threat model is in docs/cli.md): the caller chooses the address (loopback by default); a request
 * whose {@code Host} or {@code Origin} is not a name the console answers to is refused, whatever the address (no DNS
 * rebinding, no other site's page); every API request needs a token in the {@code X-Lodestar-Token} header (a
 * header, so another site's form or image cannot send it), compared in constant time: the read token allows reads,
 * the write token reads and writes; writes are refused in read-only mode; every write, done or refused, is logged
 * with who and when.
 */
final class ConsoleServer implements AutoCloseable {
    private static final int AUDIT_KEPT = 50;
    /** One line per event: an SSE {@code data:} field ends at a line break. */
    private static final com.fasterxml.jackson.databind.ObjectWriter SSE_JSON =
            Output.JSON.writer().without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);

    private final LodestarClient client;
    /** Read on every event of every watched service: from Redis at most once a second per service. */
    private final TtlLeft ttlLeft;
    private final Access access;
    private final PrintStream log;
    private final HttpServer server;
    private final ExecutorService handlers;
    private final ExecutorService pushes = Executors.newSingleThreadExecutor(daemon("lodestar-console-push"));
    private final ScheduledExecutorService ticks =
            Executors.newSingleThreadScheduledExecutor(daemon("lodestar-console-tick"));
    private final EventStreams streams;
    private final ServiceWatch services;
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final Deque<Map<String, Object>> audit = new ArrayDeque<>();
    private volatile boolean lastStale;

    /**
     * Who may do what.
     *
     * @param writeToken reads and writes (writes only when not read-only); never empty
     * @param readToken  reads only; null when there is none (then only the write token reads)
     * @param readOnly   refuse every write, whatever the token
     * @param hosts      the names and addresses requests may be addressed to and come from
     */
    record Access(String writeToken, String readToken, boolean readOnly, AllowedHosts hosts) {
        @Override
        public String toString() {
            return "Access[readOnly=" + readOnly + "]"; // never the tokens
        }
    }

    ConsoleServer(LodestarClient client, InetSocketAddress address, Access access, PrintStream log)
            throws IOException {
        this.client = client;
        this.ttlLeft = new TtlLeft(client);
        this.access = access;
        this.log = log;
        this.streams = new EventStreams(daemon("lodestar-console-sse"), log);
        this.services = new ServiceWatch(client, ticks, id -> event -> {
            push("service", serviceView(id));
            pushState();
        });
        this.server = HttpServer.create(address, 64);
        this.handlers = Executors.newFixedThreadPool(8, daemon("lodestar-console-http"));
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
    }

    /** Starts serving and following the registry and configs. */
    void start() {
        services.start(change -> pushState());
        subscriptions.add(client.config().subscribeAll(event -> push("config",
                Map.of("id", event.configId(), "version", event.version()))));
        ticks.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Once a second: the staleness banner changes without an event, and SSE needs a keep-alive. */
    private void tick() {
        try {
            boolean stale = stale();
            if (stale || stale != lastStale) {
                lastStale = stale;
                pushState();
            } else {
                pushRaw(": keep-alive\n\n");
            }
        } catch (RuntimeException e) {
            log.println(Instant.now() + " console tick failed: " + LogText.escape(ExitCodes.describe(e)));
        }
    }

    private boolean stale() {
        return client.discovery().status().stale() || client.config().status().stale();
    }

    // ---- views

    private Map<String, Object> state() {
        ViewStatus discovery = client.discovery().status();
        ViewStatus config = client.config().status();
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("namespace", client.namespace().name());
        state.put("readOnly", access.readOnly());
        state.put("stale", discovery.stale() || config.stale());
        state.put("staleForSeconds", Math.max(discovery.staleFor().toSeconds(), config.staleFor().toSeconds()));
        state.put("lastSyncAt", discovery.lastSyncAt() == null ? null : discovery.lastSyncAt().toString());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String service : services.services()) {
            ServiceSnapshot snapshot = client.discovery().getSnapshot(service);
            if (!snapshot.instances().isEmpty()) {
                rows.add(Views.service(snapshot));
            }
        }
        state.put("services", rows);
        return state;
    }

    /** For the event stream: a service that lost its last instance is shown empty. */
    private Map<String, Object> serviceView(String service) {
        return serviceView(client.discovery().getSnapshot(service));
    }

    private Map<String, Object> serviceView(ServiceSnapshot snapshot) {
        return Views.serviceDetail(snapshot, Instant.now(), ttlLeft.of(snapshot));
    }

    /** Asked for by id: a service without instances is not found, as for {@code lodestar instances}. */
    private Map<String, Object> requestedService(String service) {
        ServiceSnapshot snapshot = client.discovery().getSnapshot(service);
        if (snapshot.instances().isEmpty()) {
            throw new NotFoundException("service", service, "No instances of '" + service + "' in namespace '"
                    + client.namespace().name() + "'");
        }
        return serviceView(snapshot);
    }

    private Map<String, Object> configView(String id) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("id", id);
        view.put("current", client.config().get(id).map(entry -> Views.config(entry, true)).orElse(null));
        List<Map<String, Object>> history = new ArrayList<>();
        client.config().history(id).forEach(entry -> history.add(Views.config(entry, true)));
        view.put("history", history);
        if (view.get("current") == null && history.isEmpty()) {
            throw new NotFoundException("config", id, "No config '" + id + "'"); // a removed one keeps its history
        }
        return view;
    }

    // ---- server-sent events

    private void pushState() {
        pushes.execute(() -> {
            try {
                send("state", state());
            } catch (RuntimeException e) {
                log.println(Instant.now() + " console could not read its view: "
                        + LogText.escape(ExitCodes.describe(e)));
            }
        });
    }

    private void push(String event, Object data) {
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

    private void pushRaw(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        pushes.execute(() -> streams.send(bytes));
    }

    private void openStream(HttpExchange exchange) throws IOException {
        if (streams.open() >= EventStreams.MAX_STREAMS) {
            reply(exchange, 503, error("too_many_streams", "this console serves at most "
                    + EventStreams.MAX_STREAMS + " event streams at once"));
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(200, 0);
        // on the push thread, so the stream's first state comes before every later event and after every earlier one
        pushes.execute(() -> {
            try {
                byte[] first = ("retry: 1000\n" + event("state", state())).getBytes(StandardCharsets.UTF_8);
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

    // ---- HTTP

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String origin = exchange.getRequestHeaders().getFirst("Origin");
            if (!access.hosts().allowsHostHeader(exchange.getRequestHeaders().getFirst("Host"))
                    || origin != null && !access.hosts().allowsOrigin(origin)) {
                reply(exchange, 403, error("forbidden", "this console answers only to the host names it was given"
                        + " (--allow-host) and to pages it served itself"));
                return;
            }
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            Map<String, String> query = query(exchange.getRequestURI());
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
            reply(exchange, 405, error("method", "use GET or POST"));
        } catch (NotFoundException e) {
            reply(exchange, 404, error("not_found", e.getMessage()));
        } catch (ConflictException e) {
            Map<String, Object> body = error("conflict", e.getMessage());
            body.put("currentVersion", e.currentVersion());
            reply(exchange, 409, body);
        } catch (InvalidArgumentException | IllegalArgumentException | CommandLine.TypeConversionException e) {
            reply(exchange, 400, error("bad_request", e.getMessage()));
        } catch (UnavailableException e) {
            reply(exchange, 503, error("unavailable", ExitCodes.describe(e)));
        } catch (RuntimeException e) {
            log.println(Instant.now() + " console request failed: " + LogText.escape(ExitCodes.describe(e)));
            reply(exchange, 500, error("internal", ExitCodes.describe(e)));
        }
    }

    /** Every read shows the registry or config contents: it needs the read or the write token. */
    private void read(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        String given = exchange.getRequestHeaders().getFirst("X-Lodestar-Token");
        if (!matches(given, access.readToken()) && !matches(given, access.writeToken())) {
            reply(exchange, 401, error("token", "reading needs the console's read or write token"));
            return;
        }
        switch (path) {
            case "/api/events" -> openStream(exchange);
            case "/api/state" -> reply(exchange, 200, state());
            case "/api/service" -> reply(exchange, 200, requestedService(required(query, "id")));
            case "/api/configs" -> reply(exchange, 200, configs());
            case "/api/config" -> reply(exchange, 200, configView(required(query, "id")));
            case "/api/config/diff" -> reply(exchange, 200, diff(query));
            case "/api/audit" -> reply(exchange, 200, auditLog());
            default -> reply(exchange, 404, error("not_found", "no such page: " + path));
        }
    }

    private void write(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        String who = who(exchange);
        String action = path.replaceFirst("^/api/", "").replace('/', '.');
        if (access.readOnly()) {
            audit(who, action, query, "refused: read-only");
            reply(exchange, 403, error("read_only", "this console is read-only (--read-only)"));
            return;
        }
        if (!matches(exchange.getRequestHeaders().getFirst("X-Lodestar-Token"), access.writeToken())) {
            audit(who, action, query, "refused: no valid token");
            reply(exchange, 401, error("token", "a write needs the console's write token (a read token only reads)"));
            return;
        }
        JsonNode body = body(exchange);
        Object result;
        String detail;
        try {
            switch (path) {
                case "/api/config/set" -> {
                    String id = required(query, "id");
                    String content = text(body, "content");
                    ConfigFormat format = new ConfigCommand.FormatConverter().convert(
                            body.path("format").asText("TEXT"));
                    ConfigEntry entry = body.hasNonNull("expectedVersion")
                            ? client.config().compareAndSet(id, content, format, body.get("expectedVersion").asLong())
                            : client.config().set(id, content, format);
                    result = Views.config(entry, true);
                    detail = id + " -> version " + entry.version();
                }
                case "/api/config/rollback" -> {
                    String id = required(query, "id");
                    long version = body.path("version").asLong();
                    Long expected = body.hasNonNull("expectedVersion") ? body.get("expectedVersion").asLong() : null;
                    ConfigEntry entry = ConfigCommand.rollback(client.config(), id, version, expected);
                    result = Views.config(entry, true);
                    detail = id + " version " + version + " -> version " + entry.version();
                }
                case "/api/instance/evict" -> {
                    String service = required(query, "service");
                    String instance = required(query, "id");
                    if (!client.registry().evict(service, instance)) {
                        throw new NotFoundException("instance", instance, "No instance '" + instance + "' of '"
                                + service + "'");
                    }
                    result = Map.of("evicted", true);
                    detail = service + "/" + instance;
                }
                case "/api/instance/status" -> {
                    String service = required(query, "service");
                    String instance = required(query, "id");
                    InstanceStatus status = new LodestarCli.StatusConverter().convert(text(body, "status"));
                    ServiceInstance changed = client.registry().setStatus(service, instance, status);
                    result = Views.instance(changed, 0, Instant.now(), null);
                    detail = service + "/" + instance + " -> " + Views.statusName(status);
                }
                default -> {
                    reply(exchange, 404, error("not_found", "no such action: " + path));
                    return;
                }
            }
        } catch (RuntimeException e) {
            audit(who, action, query, "failed: " + ExitCodes.describe(e));
            throw e;
        }
        audit(who, action, query, "done: " + detail);
        reply(exchange, 200, result);
    }

    private List<Map<String, Object>> configs() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String id : client.config().list().stream().sorted().toList()) {
            client.config().get(id).ifPresent(entry -> rows.add(Views.config(entry, false)));
        }
        return rows;
    }

    private Map<String, Object> diff(Map<String, String> query) {
        String id = required(query, "id");
        ConfigEntry from = ConfigCommand.version(client.config(), id, Long.parseLong(required(query, "from")));
        ConfigEntry to = query.containsKey("to") ? ConfigCommand.version(client.config(), id,
                Long.parseLong(query.get("to"))) : ConfigCommand.current(client.config(), id);
        List<Map<String, Object>> lines = new ArrayList<>();
        for (Diff.Line line : Diff.lines(from.content(), to.content())) {
            lines.add(Map.of("op", String.valueOf(line.op()), "text", line.text()));
        }
        Map<String, Object> diff = new LinkedHashMap<>();
        diff.put("id", id);
        diff.put("from", from.version());
        diff.put("to", to.version());
        diff.put("lines", lines);
        return diff;
    }

    private synchronized List<Map<String, Object>> auditLog() {
        return new ArrayList<>(audit);
    }

    /** One line per write on the console's output, kept for the page too: who, when, what, and how it ended. */
    private void audit(String who, String action, Map<String, String> query, String outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("at", Instant.now().toString());
        entry.put("who", who);
        entry.put("action", action);
        entry.put("target", query.getOrDefault("service", "").isEmpty() ? query.getOrDefault("id", "")
                : query.get("service") + "/" + query.getOrDefault("id", ""));
        entry.put("outcome", outcome);
        synchronized (this) {
            audit.addFirst(entry);
            while (audit.size() > AUDIT_KEPT) {
                audit.removeLast();
            }
        }
        // the path, the query and messages that quote them come from the request: escaped, so no line is forged
        log.println(entry.get("at") + " AUDIT who=" + LogText.field(who) + " action=" + LogText.field(action)
                + " target=" + LogText.field((String) entry.get("target")) + " " + LogText.escape(outcome));
        log.flush();
        push("audit", entry);
    }

    /** The operator's name as the page sends it (unverified, for the log) and the address the request came from. */
    private static String who(HttpExchange exchange) {
        String operator = exchange.getRequestHeaders().getFirst("X-Lodestar-Operator");
        String name = operator == null || operator.isBlank() ? "anonymous"
                : operator.replaceAll("[^\\p{Alnum}._@-]", "_");
        if (name.length() > 64) {
            name = name.substring(0, 64);
        }
        return name + "@" + exchange.getRemoteAddress().getAddress().getHostAddress();
    }

    /** Constant time: how much of a token a guess got right does not show in the answer's timing. */
    private static boolean matches(String given, String token) {
        return given != null && token != null && !token.isEmpty() && MessageDigest.isEqual(
                given.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
    }

    private static JsonNode body(HttpExchange exchange) throws IOException {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.startsWith("application/json")) {
            throw new IllegalArgumentException("Content-Type must be application/json");
        }
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(1 << 20);
            return Output.JSON.readTree(bytes);
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return value.asText();
    }

    private static String required(Map<String, String> query, String name) {
        String value = query.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("the query parameter " + name + " is required");
        }
        return value;
    }

    private static Map<String, String> query(URI uri) {
        Map<String, String> query = new LinkedHashMap<>();
        String raw = uri.getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                query.put(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return query;
    }

    private static Map<String, Object> error(String code, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code);
        body.put("message", message);
        return body;
    }

    private static void reply(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] bytes = Output.JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void resource(HttpExchange exchange, String name, String type) throws IOException {
        try (InputStream in = ConsoleServer.class.getResourceAsStream("console/" + name)) {
            if (in == null) {
                reply(exchange, 404, error("not_found", name));
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

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public void close() {
        subscriptions.forEach(Subscription::close);
        services.close();
        ticks.shutdownNow();
        pushes.shutdownNow();
        streams.close();
        server.stop(0);
        handlers.shutdownNow();
    }
}
