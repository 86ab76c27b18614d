package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.model.ConfigEntry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * Config entries as topics of a {@link SyncedView}: the value is the current entry (empty when the config does not
 * exist), the revision is the entry's version counter, and the events carry the whole new entry, so neither the
 * view nor a listener re-reads. A resync replays the versions the view missed from history, so a listener gets
 * every version once and in order as long as they are kept. Every state read from Redis is handed to the snapshot
 * directory, which is read back only when Redis cannot be reached at a first load.
 */
final class ConfigSource implements ViewSource<Optional<ConfigEntry>, ConfigEvent> {
    private final Keys keys;
    private final ConfigReads reads;
    private final ConfigSnapshots snapshots;
    /** Told of every value read from Redis or events as the view takes it: who runs what (see AppliedRecords). */
    private final BiConsumer<String, Optional<ConfigEntry>> applied;

    ConfigSource(Keys keys, ConfigReads reads, ConfigSnapshots snapshots,
                 BiConsumer<String, Optional<ConfigEntry>> applied) {
        this.keys = keys;
        this.reads = reads;
        this.snapshots = snapshots;
        this.applied = applied;
    }

    /** A value the view takes from Redis: kept on disk, and recorded as applied. */
    private void taking(String configId, Optional<ConfigEntry> value, String incarnation) {
        snapshots.save(configId, value, incarnation);
        applied.accept(configId, value);
    }

    @Override
    public String channel(String configId) {
        return keys.config(configId).channel();
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Optional<ConfigEntry>>> load(String configId) {
        return reads.entry(configId).thenApply(loaded -> {
            taking(configId, loaded.value(), loaded.incarnation());
            return loaded;
        });
    }

    /** A resync replays from history what the view missed, so listeners still get every version once, in order. */
    @Override
    public CompletionStage<ViewSource.Reloaded<Optional<ConfigEntry>, ConfigEvent>> reload(
            String configId, SyncedView.Versioned<Optional<ConfigEntry>> held) {
        return reads.since(configId, held.revision()).thenApply(since -> {
            taking(configId, since.state().value(), since.state().incarnation());
            return new ViewSource.Reloaded<>(since.state(), replay(configId, held.revision(), since));
        });
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
        return new Batch(configId, current.incarnation());
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

    @Override
    public SyncedView.Versioned<Optional<ConfigEntry>> restore(String configId) {
        return snapshots.read(configId);
    }

    /**
     * A config's events: each carries the whole entry, so the value is the last one's; every version is a listener
     * event, and the snapshot directory gets the entry once per batch.
     */
    private final class Batch implements ViewSource.Batch<Optional<ConfigEntry>, ConfigEvent> {
        private final String configId;
        private final List<ConfigEvent> events = new ArrayList<>();
        private Optional<ConfigEntry> value;
        /** Of the keys the events come from: the held value's, or the events' own when they carry one. */
        private String incarnation;

        Batch(String configId, String incarnation) {
            this.configId = configId;
            this.incarnation = incarnation;
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
            if (message.incarnation() != null) {
                incarnation = message.incarnation();
            }
        }

        @Override
        public Optional<ConfigEntry> value() {
            taking(configId, value, incarnation);
            return value;
        }

        @Override
        public List<ConfigEvent> events() {
            return events;
        }
    }
}
