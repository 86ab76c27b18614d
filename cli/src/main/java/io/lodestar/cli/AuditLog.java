package io.lodestar.cli;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The console's record of writes: one line per write, done or refused, on the console's output (who, when, what,
 * and how it ended), and the last {@link #KEPT} of each namespace kept for its pages.
 */
final class AuditLog {
    static final int KEPT = 50;

    private final PrintStream log;
    private final boolean namespaced;
    private final Consumer<Map<String, Object>> published;
    private final Map<String, Deque<Map<String, Object>>> entries = new HashMap<>();

    /**
     * @param namespaced whether the lines name the namespace (a console that serves several; one that serves one
     *                   names it when it starts)
     * @param published  hears of every entry (the pages' event stream)
     */
    AuditLog(PrintStream log, boolean namespaced, Consumer<Map<String, Object>> published) {
        this.log = log;
        this.namespaced = namespaced;
        this.published = published;
    }

    /** Logs and keeps one write; the target is the request's {@code service} and {@code id}. */
    void record(String who, String namespace, String action, Map<String, String> query, String outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("at", Instant.now().toString());
        entry.put("who", who);
        entry.put("namespace", namespace);
        entry.put("action", action);
        entry.put("target", query.getOrDefault("service", "").isEmpty() ? query.getOrDefault("id", "")
                : query.get("service") + "/" + query.getOrDefault("id", ""));
        entry.put("outcome", outcome);
        synchronized (this) {
            Deque<Map<String, Object>> kept = entries.computeIfAbsent(namespace, name -> new ArrayDeque<>());
            kept.addFirst(entry);
            while (kept.size() > KEPT) {
                kept.removeLast();
            }
        }
        // the path, the query and messages that quote them come from the request: escaped, so no line is forged
        log.println(entry.get("at") + " AUDIT who=" + LogText.field(who)
                + (namespaced ? " namespace=" + LogText.field(namespace) : "")
                + " action=" + LogText.field(action) + " target=" + LogText.field((String) entry.get("target")) + " "
                + LogText.escape(outcome));
        log.flush();
        published.accept(entry);
    }

    /** The kept entries of a namespace, newest first. */
    synchronized List<Map<String, Object>> entries(String namespace) {
        return new ArrayList<>(entries.getOrDefault(namespace, new ArrayDeque<>()));
    }
}
