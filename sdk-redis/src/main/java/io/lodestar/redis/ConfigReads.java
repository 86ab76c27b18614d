package io.lodestar.redis;

import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.LodestarException;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reads of config entries straight from Redis (the view's loads, history, list), and the one place that turns a
 * stored entry into a {@link ConfigEntry}. Scripts write the entry JSON described in {@code config_common.lua}.
 */
final class ConfigReads {
    /** The most bytes of history one reply carries (past the first entry). */
    static final int HISTORY_PAGE_BYTES = 4 * 1024 * 1024;

    private final RedisBackend backend;
    private final Keys keys;
    /** Pages of {@link #since} read so far (tests). */
    final LongAdder sincePages = new LongAdder();
    /** Pages of {@link #history} read so far (tests). */
    final LongAdder historyPages = new LongAdder();

    ConfigReads(RedisBackend backend, Keys keys) {
        this.backend = backend;
        this.keys = keys;
    }

    /** The current entry (empty when never set or removed) at the entry's revision: a topic of the view. */
    CompletionStage<SyncedView.Versioned<Optional<ConfigEntry>>> entry(String id) {
        return ConfigScripts.READ_CONFIG.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                keys.config(id).forRead()).thenApply(reply -> {
                    long revision = Replies.counter(keys.config(id).current(), reply.get(0));
                    String incarnation = incarnation((String) reply.get(1));
                    if (reply.size() < 8) {
                        return new SyncedView.Versioned<>(revision, Optional.<ConfigEntry>empty(), null, incarnation);
                    }
                    ConfigEntry entry = new ConfigEntry(id, (String) reply.get(7), format((String) reply.get(3)),
                            (Long) reply.get(2), (String) reply.get(4), Instant.ofEpochMilli((Long) reply.get(5)),
                            Instant.ofEpochMilli((Long) reply.get(6)));
                    return new SyncedView.Versioned<>(revision, Optional.of(entry), null, incarnation);
                });
    }

    /**
     * What a view that holds version {@code since} missed: the current state, the oldest kept version and every
     * kept version after {@code since}, oldest first (see read_config_since.lua). Read in pages of at most
     * {@link #HISTORY_PAGE_BYTES} (past their first entry), like {@link #history}: each page is atomic, the state is
     * the last page's (the newest), and a page never repeats or skips a version of the one before.
     */
    CompletionStage<Since> since(String id, long since) {
        return sinceAfter(id, since, new ArrayList<>());
    }

    private CompletionStage<Since> sinceAfter(String id, long after, List<Kept> newer) {
        Keys.ConfigKeys config = keys.config(id);
        return ConfigScripts.READ_CONFIG_SINCE.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                config.forReplay(), Long.toString(after), Integer.toString(HISTORY_PAGE_BYTES))
                .thenCompose(reply -> {
                    sincePages.increment();
                    for (int i = 6; i < reply.size(); i++) {
                        newer.add(kept(id, (String) reply.get(i), config.history()));
                    }
                    if ((Long) reply.get(5) == 1L && reply.size() > 6) {
                        return sinceAfter(id, newer.get(newer.size() - 1).entry().version(), newer);
                    }
                    Optional<ConfigEntry> current = Optional.empty();
                    if ((Long) reply.get(2) == 1L) {
                        String json = (String) reply.get(3);
                        current = Optional.of(json.isEmpty() ? newest(id, newer)
                                : stored(id, json, config.history(), null));
                    }
                    return CompletableFuture.completedFuture(new Since(new SyncedView.Versioned<>(
                            Replies.counter(config.current(), reply.get(0)), current, null,
                            incarnation((String) reply.get(4))),
                            Replies.number(reply.get(1), config.history(), " holds an entry that is not a version"),
                            newer));
                });
    }

    /** The current entry when it is newer than what the view holds: the last kept version. */
    private static ConfigEntry newest(String id, List<Kept> newer) {
        if (newer.isEmpty()) {
            throw new LodestarException("Config '" + id + "' has a current entry that is not in its history: were its"
                    + " keys written by another program?");
        }
        return newer.get(newer.size() - 1).entry();
    }

    /** An incarnation as read ('' when the entry's keys have none yet), or null. */
    private static String incarnation(String read) {
        return read == null || read.isEmpty() ? null : read;
    }

    /** A kept version; {@code from} is the version it rolled back to, or 0 when it was set. */
    record Kept(ConfigEntry entry, long from) {
    }

    /** The state now, the oldest kept version (0: none) and the kept versions after the one asked about. */
    record Since(SyncedView.Versioned<Optional<ConfigEntry>> state, long oldestKept, List<Kept> newer) {
    }

    /**
     * The revision, the current content hash ("" when there is no current entry) and the incarnation, for the
     * reconcile: one HMGET of the current hash, which holds the entry and its stamp.
     */
    CompletionStage<SyncedView.Versioned<Void>> stamp(String id) {
        String current = keys.config(id).current();
        return backend.commands().hmget(current, "hash", Keys.REVISION_FIELD, Keys.INCARNATION_FIELD)
                .thenApply(fields -> new SyncedView.Versioned<>(
                        Replies.stampRevision(current, fields.get(1).getValueOrElse(null)), null,
                        fields.get(0).getValueOrElse(""), incarnation(fields.get(2).getValueOrElse(null))));
    }

    /** The kept versions, newest first. */
    CompletionStage<List<ConfigEntry>> history(String id) {
        return historyBelow(id, "+inf", new ArrayList<>());
    }

    /**
     * The kept versions below {@code below}, a page at a time (at most {@link #HISTORY_PAGE_BYTES} per reply, so
     * that 1000 versions of 1 MiB never make one reply of a GiB), added to {@code into}; newest first.
     */
    private CompletionStage<List<ConfigEntry>> historyBelow(String id, String below, List<ConfigEntry> into) {
        return ConfigScripts.READ_CONFIG_HISTORY.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                keys.config(id).forHistory(), below, Integer.toString(HISTORY_PAGE_BYTES)).thenCompose(reply -> {
                    historyPages.increment();
                    for (Object json : reply.subList(1, reply.size())) {
                        into.add(stored(id, (String) json, keys.config(id).history(), null));
                    }
                    boolean more = (Long) reply.get(0) == 1L && reply.size() > 1;
                    return more ? historyBelow(id, Long.toString(into.get(into.size() - 1).version()), into)
                            : CompletableFuture.completedFuture(Collections.unmodifiableList(into));
                });
    }

    /** One kept version, if it is still in history. */
    CompletionStage<Optional<ConfigEntry>> version(String id, long version) {
        String history = keys.config(id).history();
        String streamId = version + "-0";
        return backend.commands().xrange(history, Range.create(streamId, streamId)).thenApply(found -> found.stream()
                .findFirst().map(kept -> stored(id, kept.getBody().get("entry"), history, streamId)));
    }

    /** The ids of the configs that exist, sorted and unmodifiable, at the index revision. */
    CompletionStage<SyncedView.Versioned<Set<String>>> index() {
        Keys.IndexKeys index = keys.configs();
        return Scripts.READ_INDEX.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                index.forRead()).thenApply(reply -> {
                    Set<String> ids = new TreeSet<>();
                    for (int i = 2; i < reply.size(); i++) {
                        ids.add((String) reply.get(i));
                    }
                    return new SyncedView.Versioned<>(Replies.counter(index.revision(), reply.get(0)),
                            Collections.unmodifiableSet(ids), null,
                            incarnation((String) reply.get(1)));
                });
    }

    CompletionStage<Long> indexRevision() {
        return backend.counter(keys.configs().revision());
    }

    // ---------------------------------------------------------------- the stored form

    static ConfigEntry parse(String id, String json) {
        return parse(id, Json.read(json));
    }

    /** An entry from its stored JSON (history, events): version, format, hash, createdAt, updatedAt, content. */
    static ConfigEntry parse(String id, Map<String, Object> fields) {
        return new ConfigEntry(id, (String) fields.get("content"), format((String) fields.get("format")),
                ((Number) fields.get("version")).longValue(), (String) fields.get("hash"),
                Instant.ofEpochMilli(((Number) fields.get("createdAt")).longValue()),
                Instant.ofEpochMilli(((Number) fields.get("updatedAt")).longValue()));
    }

    /**
     * A version as the history stream {@code key} keeps it (in stream entry {@code entryId}, when the caller knows it,
     * else null),
     * or a {@link Replies.Corrupt} naming the key when it is not an entry. The message leaves the value out: a
     * config's content may be a secret.
     */
    private static ConfigEntry stored(String id, String json, String key, String entryId) {
        try {
            return parse(id, json);
        } catch (RuntimeException notAnEntry) {
            throw corruptEntry(key, entryId, notAnEntry);
        }
    }

    /** A version replayed to a view, with the version it rolled back from (0 when it was set). */
    private static Kept kept(String id, String json, String key) {
        try {
            Map<String, Object> fields = Json.read(json);
            Object from = fields.get("from");
            return new Kept(parse(id, fields), from == null ? 0 : ((Number) from).longValue());
        } catch (RuntimeException notAnEntry) {
            throw corruptEntry(key, null, notAnEntry);
        }
    }

    private static Replies.Corrupt corruptEntry(String key, String entryId, RuntimeException cause) {
        return new Replies.Corrupt(key + (entryId == null ? " holds a value that is not a config entry"
                : " entry " + entryId + " does not hold a config entry"), cause);
    }

    /** A format written by a newer client that this one does not know is read as plain text, not as an error. */
    static ConfigFormat format(String name) {
        for (ConfigFormat format : ConfigFormat.values()) {
            if (format.name().equals(name)) {
                return format;
            }
        }
        return ConfigFormat.TEXT;
    }
}
