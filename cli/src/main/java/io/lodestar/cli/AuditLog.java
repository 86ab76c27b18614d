package io.lodestar.cli;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The console's record of writes: one line per write, done or refused, on the console's output (who, when, what,
 * and how it ended), and the last {@link #KEPT} kept for the page.
 */
final class AuditLog {
    static final int KEPT = 50;

    private final PrintStream log;
    private final Consumer<Map<String, Object>> published;
    private final Deque<Map<String, Object>> entries = new ArrayDeque<>();

    /** @param published hears of every entry (the pages' event stream) */
    AuditLog(PrintStream log, Consumer<Map<String, Object>> published) {
        this.log = log;
        this.published = published;
    }

    /** Logs and keeps one write; the target is the request's {@code service} and {@code id}. */
    void record(String who, String action, Map<String, String> query, String outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("at", Instant.now().toString());
        entry.put("who", who);
        entry.put("action", action);
        entry.put("target", query.getOrDefault("service", "").isEmpty() ? query.getOrDefault("id", "")
                : query.get("service") + "/" + query.getOrDefault("id", ""));
        entry.put("outcome", outcome);
        synchronized (this) {
            entries.addFirst(entry);
            while (entries.size() > KEPT) {
                entries.removeLast();
            }
        }
        // the path, the query and messages that quote them come from the request: escaped, so no line is forged
        log.println(entry.get("at") + " AUDIT who=" + LogText.field(who) + " action=" + LogText.field(action)
                + " target=" + LogText.field((String) entry.get("target")) + " " + LogText.escape(outcome));
        log.flush();
        published.accept(entry);
    }

    /** The kept entries, newest first. */
    synchronized List<Map<String, Object>> entries() {
        return new ArrayList<>(entries);
    }
}
