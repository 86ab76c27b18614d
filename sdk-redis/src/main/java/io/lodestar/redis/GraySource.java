package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.GrayRelease;
import io.lodestar.core.model.GrayRule;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The gray releases of configs as topics of a {@link SyncedView}, one per config beside its entry's: the value is
 * the release (or none), the revision the release's own counter, and the events carry the whole release, so nothing
 * is re-read. A resync reads the release whole (a release has no history to replay: only its newest state matters).
 */
final class GraySource implements ViewSource<GraySource.GrayState, GraySource.GrayState> {
    private final Keys keys;
    private final RedisBackend backend;
    /** Told of each config whose gray state the view took (on the view thread): who runs what re-records it. */
    private final Consumer<String> taken;

    GraySource(Keys keys, RedisBackend backend, Consumer<String> taken) {
        this.keys = keys;
        this.backend = backend;
        this.taken = taken;
    }

    @Override
    public void held(String configId, SyncedView.Versioned<GrayState> value) {
        taken.accept(configId);
    }

    /**
     * A config's gray state: its running release (null: none) and, right after a promotion, the version the release
     * became ({@code promotedTo}, else 0). Gray instances keep the release's content until their entry reaches that
     * version, so they hear no change whichever of the promotion's two events (the entry's, the release's) they see
     * first.
     */
    record GrayState(GrayRelease release, long promotedTo) {
        static final GrayState NONE = new GrayState(null, 0);
    }

    @Override
    public String channel(String configId) {
        return keys.config(configId).grayChannel();
    }

    @Override
    public CompletionStage<SyncedView.Versioned<GrayState>> load(String configId) {
        return readRelease(configId);
    }

    /** The release now, from Redis (read_gray.lua). */
    CompletionStage<SyncedView.Versioned<GrayState>> readRelease(String configId) {
        Keys.ConfigKeys config = keys.config(configId);
        return ConfigScripts.READ_GRAY.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                config.forGray()).thenApply(reply -> {
                    long revision = Replies.counter(config.grayRevision(), reply.get(0));
                    String incarnation = (String) reply.get(1);
                    String json = (String) reply.get(2);
                    GrayState state = json.isEmpty() ? GrayState.NONE
                            : new GrayState(release(configId, Json.read(json), config.gray()), 0);
                    return new SyncedView.Versioned<>(revision, state, null,
                            incarnation.isEmpty() ? null : incarnation);
                });
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Void>> stamp(String configId) {
        return backend.counter(keys.config(configId).grayRevision())
                .thenApply(revision -> new SyncedView.Versioned<>(revision, null));
    }

    @Override
    public ViewSource.Batch<GrayState, GrayState> batch(String configId, SyncedView.Versioned<GrayState> current) {
        return new Batch(configId, current.value());
    }

    @Override
    public GrayState resynced(String configId, SyncedView.Versioned<GrayState> before,
                              SyncedView.Versioned<GrayState> after) {
        return before.value().equals(after.value()) ? null : after.value();
    }

    /** A release from its JSON (config_common.lua); a {@link Replies.Corrupt} naming the key when it is not one. */
    static GrayRelease release(String configId, Map<String, Object> fields, String key) {
        try {
            return new GrayRelease(configId, (String) fields.get("content"),
                    ConfigReads.format((String) fields.get("format")), (String) fields.get("hash"),
                    GrayRule.parse((String) fields.get("rule")), (String) fields.get("salt"),
                    ((Number) fields.get("base")).longValue(), ((Number) fields.get("rev")).longValue(),
                    Instant.ofEpochMilli(((Number) fields.get("startedAt")).longValue()),
                    Instant.ofEpochMilli(((Number) fields.get("updatedAt")).longValue()));
        } catch (RuntimeException notARelease) {
            throw new Replies.Corrupt(key + " holds a value that is not a gray release", notARelease);
        }
    }

    /** A config's gray events, each giving the whole new state: the value is the last one's. */
    private final class Batch implements ViewSource.Batch<GrayState, GrayState> {
        private final String configId;
        private final List<GrayState> events = new ArrayList<>();
        private GrayState value;

        Batch(String configId, GrayState held) {
            this.configId = configId;
            this.value = held;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void apply(ViewSource.Message message) {
            Map<String, Object> fields = message.fields();
            Object type = fields.get("type");
            if ("gray".equals(type)) {
                value = new GrayState(release(configId, (Map<String, Object>) fields.get("gray"),
                        keys.config(configId).grayChannel()), 0);
            } else if ("promoted".equals(type)) {
                value = new GrayState(value.release(), ((Number) fields.get("version")).longValue());
            } else if ("aborted".equals(type)) {
                value = GrayState.NONE;
            } else {
                // a newer client's event type: the view cannot know what changed, so it re-reads the release
                throw new IllegalArgumentException("unknown event type " + Validation.show(type));
            }
            events.add(value);
        }

        @Override
        public GrayState value() {
            return value;
        }

        @Override
        public List<GrayState> events() {
            return events;
        }
    }
}
