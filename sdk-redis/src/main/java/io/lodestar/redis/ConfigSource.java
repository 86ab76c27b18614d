package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.model.ConfigEntry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * Config entries as topics of a {@link SyncedView}: the value is the current entry (empty when the config does not
 * exist), the revision is the entry's version counter, and the events carry the whole new entry, so neither the
 * view nor a listener re-reads. A resync replays the versions the view missed from history, so a listener gets
 * every version once and in order as long as they are kept. Every state the view holds is handed to the snapshot
 * directory ({@link #held}), which is read back only when Redis cannot be reached at a first load.
 */
final class ConfigSource implements ViewSource<Optional<ConfigEntry>, ConfigEvent> {
    /** The one item of a config for the data-loss protection (see {@link #lost}): its entry. */
    private static final String WHOLE = "";

    private final Keys keys;
    private final ConfigReads reads;
    private final Snapshots<Optional<ConfigEntry>> snapshots;
    /** Told of every value the view takes (from Redis or events): who runs what (see AppliedRecords). */
    private final BiConsumer<String, Optional<ConfigEntry>> applied;

    ConfigSource(Keys keys, ConfigReads reads, Snapshots<Optional<ConfigEntry>> snapshots,
                 BiConsumer<String, Optional<ConfigEntry>> applied) {
        this.keys = keys;
        this.reads = reads;
        this.snapshots = snapshots;
        this.applied = applied;
    }

    @Override
    public String channel(String configId) {
        return keys.config(configId).channel();
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Optional<ConfigEntry>>> load(String configId) {
        return reads.entry(configId);
    }

    /** A resync replays from history what the view missed, so listeners still get every version once, in order. */
    @Override
    public CompletionStage<ViewSource.Reloaded<Optional<ConfigEntry>, ConfigEvent>> reload(
            String configId, SyncedView.Versioned<Optional<ConfigEntry>> held) {
        return reads.since(configId, held.revision()).thenApply(since ->
                new ViewSource.Reloaded<>(since.state(), replay(configId, held.revision(), since)));
    }

    /**
     * The events from {@code held} to the current state: a kept version is a change (or a rollback), a version
     * between the oldest kept and now that is not kept was a remove. Null when that cannot be told: versions
     * trimmed from history were missed, or the counter went back (Redis lost its data).
     */
    static List<ConfigEvent> replay(String configId, long held, ConfigReads.Since since) {
        long now = since.state().revision();
        if (now < held) {
            return null;
        }
        Map<Long, ConfigReads.Kept> kept = new HashMap<>();
        since.newer().forEach(version -> kept.put(version.entry().version(), version));
        List<ConfigEvent> events = new ArrayList<>();
        for (long version = held + 1; version <= now; version++) {
            ConfigReads.Kept found = kept.get(version);
            if (found != null) {
                events.add(found.from() > 0
                        ? new ConfigRolledBack(configId, version, found.from(), found.entry())
                        : new ConfigChanged(configId, version, found.entry()));
            } else if (since.oldestKept() > 0 && version > since.oldestKept()) {
                events.add(new ConfigRemoved(configId, version));
            } else {
                return null;
            }
        }
        return events;
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Void>> stamp(String configId) {
        return reads.stamp(configId);
    }

    /** The content hash of the current entry, or "" when there is none: what {@link ConfigReads#stamp} reads. */
    @Override
    public String digest(SyncedView.Versioned<Optional<ConfigEntry>> held) {
        return held.value().map(ConfigEntry::contentHash).orElse("");
    }

    /** The real event of the held version announced the entry held (same hash), or its removal. */
    @Override
    @SuppressWarnings("unchecked")
    public boolean describes(SyncedView.Versioned<Optional<ConfigEntry>> held, ViewSource.Message message) {
        Object type = message.fields().get("type");
        if ("changed".equals(type) || "rolledback".equals(type)) {
            Object hash = ((Map<String, Object>) message.fields().get("entry")).get("hash");
            return held.value().map(entry -> entry.contentHash().equals(hash)).orElse(false);
        }
        return !"removed".equals(type) || held.value().isEmpty();
    }

    @Override
    public ViewSource.Batch<Optional<ConfigEntry>, ConfigEvent> batch(
            String configId, SyncedView.Versioned<Optional<ConfigEntry>> current) {
        return new Batch(configId);
    }

    @Override
    public ConfigEvent resynced(String configId, SyncedView.Versioned<Optional<ConfigEntry>> before,
                                SyncedView.Versioned<Optional<ConfigEntry>> after) {
        if (before.value().equals(after.value())) {
            return null;
        }
        return after.value().<ConfigEvent>map(entry -> new ConfigChanged(configId, after.revision(), entry))
                .orElseGet(() -> new ConfigRemoved(configId, after.revision()));
    }

    /**
     * A config Redis lost (absent under keys written anew) keeps its last content until it is written again or
     * really removed: nobody writes a config back on their own, and its absence is not news an app should act on.
     */
    @Override
    public Map<String, Duration> lost(String configId, Optional<ConfigEntry> held, Optional<ConfigEntry> loaded) {
        return held.isPresent() && loaded.isEmpty() ? Collections.singletonMap(WHOLE, null) : Map.of();
    }

    @Override
    public Optional<ConfigEntry> withKept(String configId, Optional<ConfigEntry> loaded, Optional<ConfigEntry> from,
                                          Set<String> items) {
        return items.contains(WHOLE) ? from : loaded;
    }

    /** Every event of a config writes it whole (or removes it). */
    @Override
    public String item(ViewSource.Message message) {
        return WHOLE;
    }

    @Override
    public SyncedView.Versioned<Optional<ConfigEntry>> restore(String configId) {
        return snapshots.read(configId);
    }

    @Override
    public void held(String configId, SyncedView.Versioned<Optional<ConfigEntry>> value) {
        snapshots.save(configId, value);
        applied.accept(configId, value.value());
    }

    /**
     * A config's events: each carries the whole entry, so the value is the last one's; every version is a listener
     * event.
     */
    private final class Batch implements ViewSource.Batch<Optional<ConfigEntry>, ConfigEvent> {
        private final String configId;
        private final List<ConfigEvent> events = new ArrayList<>();
        private Optional<ConfigEntry> value;

        Batch(String configId) {
            this.configId = configId;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void apply(ViewSource.Message message) {
            Map<String, Object> fields = message.fields();
            long version = message.revision();
            Object type = fields.get("type");
            if ("changed".equals(type) || "rolledback".equals(type)) {
                ConfigEntry entry = ConfigReads.parse(configId, (Map<String, Object>) fields.get("entry"));
                events.add("changed".equals(type) ? new ConfigChanged(configId, version, entry)
                        : new ConfigRolledBack(configId, version, ((Number) fields.get("from")).longValue(), entry));
                value = Optional.of(entry);
            } else if ("removed".equals(type)) {
                events.add(new ConfigRemoved(configId, version));
                value = Optional.empty();
            } else {
                // a newer client's event type: the view cannot know what changed, so it re-reads the config
                throw new IllegalArgumentException("unknown event type " + Validation.show(type));
            }
        }

        @Override
        public Optional<ConfigEntry> value() {
            return value;
        }

        @Override
        public List<ConfigEvent> events() {
            return events;
        }
    }
}
