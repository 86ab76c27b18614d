package io.lodestar.redis;

import io.lodestar.core.ConfigListener;
import io.lodestar.core.Initial;
import io.lodestar.core.Subscription;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.AppliedConfig;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.GrayRelease;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.redis.GraySource.GrayState;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What this client reads of a config when a gray release runs: the <em>effective</em> entry, the release's content
 * when this client's identity is in the release's gray set, else the config's current version. Each client decides
 * locally, from the entry view and the gray view (two topics of the same slot, both kept by events). A client
 * without an identity is in no gray set and never loads a release on {@link #effective(String, Optional)}.
 */
final class GrayConfigs {
    private final SyncedView<Optional<ConfigEntry>, ConfigEvent> entries;
    private final SyncedView<GrayState, GrayState> grays;
    private final Set<EffectiveListener> listeners = ConcurrentHashMap.newKeySet();
    /** Whether Redis can be reached now: while it cannot, a release cannot be read (see EffectiveListener). */
    private final BooleanSupplier connected;
    private volatile InstanceIdentity identity;

    GrayConfigs(SyncedView<Optional<ConfigEntry>, ConfigEvent> entries, SyncedView<GrayState, GrayState> grays,
                InstanceIdentity identity, BooleanSupplier connected) {
        this.entries = entries;
        this.grays = grays;
        this.identity = identity;
        this.connected = connected;
    }

    /**
     * Takes the identity of the first instance this client registers, unless it has one (from the options): its
     * listeners then hear the change if that puts them in (or out of) a gray set.
     */
    void identify(InstanceIdentity registered) {
        if (identity == null) {
            identity = registered;
            listeners.forEach(EffectiveListener::identityChanged);
        }
    }

    /**
     * Which content of {@code main} this client applies, for who runs what: {@link AppliedConfig#GRAY} when the
     * release the gray view holds applies to this client, else {@link AppliedConfig#MAIN}. Never loads (view thread).
     */
    String variant(String configId, Optional<ConfigEntry> main) {
        InstanceIdentity self = identity;
        GrayState gray = self == null ? null : grays.api().getIfHeld(configId);
        return gray != null && applies(main, gray, self) ? AppliedConfig.GRAY : AppliedConfig.MAIN;
    }

    /**
     * Whether {@link #effective(String, Optional)} of this entry would load the config's release first (this client
     * has an identity, the config exists, and its release is not held yet): an asynchronous read then goes off the
     * caller's thread, and otherwise answers at once.
     */
    boolean loadsRelease(String configId, Optional<ConfigEntry> main) {
        return identity != null && main.isPresent() && grays.api().getIfHeld(configId) == null;
    }

    /**
     * The effective entry of a config whose current entry is {@code main} (loads its release on first use). While
     * the release cannot be loaded (Redis unreachable, the entry perhaps served from a snapshot) it is the current
     * entry: a read that worked without gray releases keeps working.
     */
    Optional<ConfigEntry> effective(String configId, Optional<ConfigEntry> main) {
        InstanceIdentity self = identity;
        if (self == null || main.isEmpty()) {
            return main;
        }
        GrayState gray;
        try {
            gray = grays.api().read(configId, Validation::requireConfigId);
        } catch (UnavailableException unreachable) {
            return main;
        }
        return effective(main, gray, self);
    }

    /**
     * The gray content for an instance in the gray set of a running release while the config exists (also right
     * after a promotion, until the entry reaches the promoted version), else {@code main}.
     */
    static Optional<ConfigEntry> effective(Optional<ConfigEntry> main, GrayState gray, InstanceIdentity identity) {
        if (!applies(main, gray, identity)) {
            return main;
        }
        ConfigEntry current = main.orElseThrow();
        GrayRelease release = gray.release();
        return Optional.of(new ConfigEntry(current.id(), release.content(), release.format(), current.version(),
                release.contentHash(), current.createdAt(), release.updatedAt()));
    }

    private static boolean applies(Optional<ConfigEntry> main, GrayState gray, InstanceIdentity identity) {
        return identity != null && main.isPresent() && gray.release() != null && gray.release().appliesTo(identity)
                && (gray.promotedTo() == 0 || main.get().version() < gray.promotedTo());
    }

    /**
     * A listener of a config's effective entry: it follows the entry and the release (both on one serial executor,
     * so its state needs no lock) and hears the entry's own events while no release applies to it, else one
     * {@link ConfigChanged} (or {@link ConfigRemoved}) each time the effective content or format changes. Returns
     * once the listener is attached to the loaded entry and release.
     */
    Subscription subscribe(String configId, ConfigListener listener, Initial initial, Executor executor) {
        Subscription subscription = follow(configId, listener,
                initial == Initial.DELIVER ? start -> start.ifPresent(listener::onEvent) : start -> { }, executor);
        awaitLoaded(configId);
        return subscription;
    }

    /**
     * Like {@link #subscribe}, without waiting (for a caller on a view's thread): {@code onStart} is called first,
     * on the listener's executor, with the effective entry the listener starts from as a {@link ConfigChanged}
     * (empty when the config does not exist), once both topics are loaded.
     */
    Subscription follow(String configId, ConfigListener listener, Consumer<Optional<ConfigChanged>> onStart,
                        Executor executor) {
        EffectiveListener effective = new EffectiveListener(configId, listener, onStart, new SerialExecutor(executor));
        listeners.add(effective);
        Subscription gray = grays.api().subscribe(configId, effective::onGray, effective::grayStarted,
                effective.serial);
        Subscription main = entries.api().subscribe(configId, effective::onMain, effective::mainStarted,
                effective.serial);
        return () -> {
            listeners.remove(effective);
            effective.closed = true;
            main.close();
            gray.close();
        };
    }

    /**
     * Drops a config's entry and release at once, if nobody listens to them and the config does not exist (see
     * {@link SyncedView#release}).
     */
    void releaseAbsent(String configId) {
        entries.release(configId, Optional::isEmpty);
        grays.release(configId, state -> state.release() == null);
    }

    /** Waits (bounded) until a config's entry and release are loaded; see {@link ViewReads#awaitLoaded(String)}. */
    void awaitLoaded(String configId) {
        grays.api().awaitLoaded(configId);
        entries.api().awaitLoaded(configId);
    }

    private final class EffectiveListener {
        private final String configId;
        private final ConfigListener listener;
        private final Consumer<Optional<ConfigChanged>> onStart;
        private final Executor serial;
        private volatile boolean closed;
        // only touched on the serial executor
        private Optional<ConfigEntry> main = Optional.empty();
        private long version;
        private GrayState gray = GrayState.NONE;
        private boolean mainLoaded;
        private boolean grayLoaded;
        private boolean started;
        private Optional<ConfigEntry> delivered = Optional.empty();

        EffectiveListener(String configId, ConfigListener listener, Consumer<Optional<ConfigChanged>> onStart,
                          Executor serial) {
            this.configId = configId;
            this.listener = listener;
            this.onStart = onStart;
            this.serial = serial;
        }

        void grayStarted(SyncedView.Versioned<GrayState> start) {
            grayLoaded = true;
            if (started) { // started from the entry alone: the release's content now, if it changes anything
                onGray(start.value());
                return;
            }
            gray = start.value();
            startIfLoaded();
        }

        void mainStarted(SyncedView.Versioned<Optional<ConfigEntry>> start) {
            main = start.value();
            version = start.revision();
            mainLoaded = true;
            startIfLoaded();
        }

        /**
         * Starts from the effective entry once both topics are loaded, whichever loads last: starting from the
         * entry alone would hand a client in the gray set the current content first, and then a change to the gray
         * content it had all along. Unless no release can apply (no identity), or none can be read (Redis cannot be
         * reached, the entry perhaps served from a snapshot): then from the entry alone, as {@code get} answers, and
         * the release's content, if it applies, is one change once it loads.
         */
        private void startIfLoaded() {
            if (mainLoaded && !started && (grayLoaded || identity == null || !connected.getAsBoolean())) {
                started = true;
                delivered = effective(main, gray, identity);
                if (!closed) {
                    onStart.accept(delivered.map(entry -> new ConfigChanged(configId, version, entry)));
                }
            }
        }

        void onMain(ConfigEvent event) {
            InstanceIdentity self = identity;
            boolean before = applies(main, gray, self);
            version = event.version();
            if (event instanceof ConfigChanged changed) {
                main = Optional.of(changed.entry());
            } else if (event instanceof ConfigRolledBack back) {
                main = Optional.of(back.entry());
            } else {
                main = Optional.empty();
            }
            if (!started) {
                return; // the start, when the release is loaded, is from this entry
            }
            if (!before && !applies(main, gray, self)) {
                delivered = main;
                deliver(event); // no release involved: the entry's own event, as without gray releases
            } else {
                deliverIfChanged();
            }
        }

        void onGray(GrayState state) {
            gray = state;
            if (started) {
                deliverIfChanged();
            }
        }

        void identityChanged() {
            serial.execute(() -> {
                if (started) {
                    deliverIfChanged();
                }
            });
        }

        private void deliverIfChanged() {
            Optional<ConfigEntry> now = effective(main, gray, identity);
            boolean same = now.isPresent() == delivered.isPresent() && (now.isEmpty()
                    || now.get().contentHash().equals(delivered.get().contentHash())
                    && now.get().format() == delivered.get().format());
            if (!same) {
                delivered = now;
                deliver(now.<ConfigEvent>map(entry -> new ConfigChanged(configId, version, entry))
                        .orElseGet(() -> new ConfigRemoved(configId, version)));
            }
        }

        private void deliver(ConfigEvent event) {
            if (!closed) {
                listener.onEvent(event);
            }
        }
    }
}
