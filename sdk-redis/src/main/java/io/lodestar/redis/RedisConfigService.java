package io.lodestar.redis;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.AsyncConfigService;
import io.lodestar.core.ConfigListener;
import io.lodestar.core.ConfigReader;
import io.lodestar.core.ConfigEncryptionException;
import io.lodestar.core.ConfigService;
import io.lodestar.core.ConflictException;
import io.lodestar.core.Initial;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.Subscription;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.model.AppliedConfig;
import io.lodestar.core.model.ConfigAudit;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRelease;
import io.lodestar.core.model.GrayRule;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.redis.Calls.Call;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Config entries on Redis. Every write is one Lua script on the entry's keys (version, hash, history and event in
 * one atomic step), followed by a report to the namespace index, which lives in another slot. Reads of the
 * current entry come from a {@link SyncedView} of entries, kept by the entries' events; the namespace index view
 * tells {@link #subscribeAll} which entries to follow. A config's gray release is a topic of its own ({@link GraySource},
 * same slot), from which {@link GrayConfigs} makes the effective entry that reads and listeners get. Every write
 * script also appends the write to the entry's audit log, with {@link #writer}.
 */
final class RedisConfigService implements ConfigService {
    private static final Logger log = LoggerFactory.getLogger(RedisConfigService.class);
    /** The expected version that tells set_config.lua to set in any case. */
    private static final long ANY_VERSION = -1;

    private final RedisBackend backend;
    private final Keys keys;
    private final String namespace;
    private final int historyLimit;
    private final Executor listenerPool;
    private final ConfigReads reads;
    private final ConfigReader direct;
    private final SyncedView<Optional<ConfigEntry>, ConfigEvent> entries;
    private final SyncedView<Set<String>, ServicesChanged> index;
    private final SyncedView<GraySource.GrayState, GraySource.GrayState> grays;
    private final GraySource graySource;
    private final GrayConfigs effective;
    /** The last two ARGV of every write script: who writes (client name, host), for the audit log. */
    private final String[] writer;
    private final Calls calls;
    /** Every content written is encoded here and every entry handed out decoded here (encryption). */
    private final ConfigCodec codec;
    private final AppliedRecords applied;
    private final AsyncConfigService async = new Async();

    RedisConfigService(LodestarOptions options, ConfigCodec codec, RedisBackend backend, Keys keys,
                       SyncedView.Shared views, Executor listenerPool) {
        this.backend = backend;
        this.keys = keys;
        this.namespace = options.namespace().name();
        this.historyLimit = options.configHistoryLimit();
        this.listenerPool = listenerPool;
        this.calls = new Calls(backend, listenerPool);
        this.reads = new ConfigReads(backend, keys);
        this.codec = codec;
        this.direct = new DirectConfigReader(reads, codec, backend);
        Snapshots<Optional<ConfigEntry>> snapshots = Snapshots.configs(options.configSnapshotDirectory(), namespace,
                options.redactedRedisUri(), listenerPool);
        this.applied = new AppliedRecords(backend, keys, options.clientName(), options.sweepInterval(),
                options.recordAppliedConfigs());
        // Who runs what: each value the entry view takes, and each release the gray view takes, is recorded with the
        // variant this client applies (gray when the release applies to its identity)
        this.entries = new SyncedView<>("config", new ConfigSource(keys, reads, snapshots, this::noteApplied), views);
        this.index = new SyncedView<>("config index", new IndexSource(keys.configs().channel(), reads::index,
                reads::indexRevision, Validation::requireConfigId), views);
        this.graySource = new GraySource(keys, backend, configId -> {
            Optional<ConfigEntry> main = entries.api().getIfHeld(configId);
            if (main != null) {
                noteApplied(configId, main);
            }
        });
        this.grays = new SyncedView<>("config gray", graySource, views);
        this.effective = new GrayConfigs(entries, grays, options.identity().orElse(null), backend::isConnected);
        this.writer = new String[] {options.clientName(), localHost()};
    }

    /** This machine's name for the audit log, looked up once ("unknown" when it cannot be). */
    private static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException e) {
            return "unknown";
        }
    }

    /** The script's own arguments followed by the writer's (see {@link #writer}). */
    private String[] withWriter(String... args) {
        String[] all = Arrays.copyOf(args, args.length + writer.length);
        System.arraycopy(writer, 0, all, args.length, writer.length);
        return all;
    }

    /** The identity of an instance this client registered: gray releases look at it unless the options gave one. */
    void identify(InstanceIdentity registered) {
        effective.identify(registered);
        entries.api().peekHeld().forEach(this::noteApplied); // with an identity, some may be gray now
    }

    /** The view holds {@code main} for a config: records it, with the variant this client applies. */
    private void noteApplied(String configId, Optional<ConfigEntry> main) {
        applied.note(configId, main, effective.variant(configId, main));
    }

    /** Reads that ask Redis on every call ({@code LodestarClient.directConfig()}). */
    ConfigReader direct() {
        return direct;
    }

    // ---------------------------------------------------------------- reads from the view

    @Override
    public Optional<ConfigEntry> get(String configId) {
        return codec.decode(effective.effective(configId, entries.api().read(configId,
                Validation::requireConfigId)));
    }

    /** Returns once the listener is attached to the loaded entry, so every later write reaches it. */
    @Override
    public Subscription subscribe(String configId, ConfigListener listener) {
        return subscribe(configId, listener, Initial.SKIP, listenerPool);
    }

    @Override
    public Subscription subscribe(String configId, ConfigListener listener, Initial initial) {
        return subscribe(configId, listener, initial, listenerPool);
    }

    @Override
    public Subscription subscribe(String configId, ConfigListener listener, Initial initial, Executor executor) {
        Validation.collector().configId("configId", configId).notNull("listener", listener)
                .notNull("initial", initial).notNull("executor", executor).throwIfInvalid();
        return effective.subscribe(configId, event -> deliver(listener, event), initial, executor);
    }

    /**
     * Hands a listener the event with its entry decoded. A version this client cannot decrypt (it lacks the key,
     * or the ciphertext was changed) is never delivered as ciphertext: it is skipped and logged, naming the key.
     */
    private void deliver(ConfigListener listener, ConfigEvent event) {
        ConfigEvent decoded;
        try {
            decoded = codec.decode(event);
        } catch (ConfigEncryptionException e) {
            log.warn("A config listener does not get this version: {}", e.getMessage());
            return;
        }
        listener.onEvent(decoded);
    }

    /** Returns once the listener follows every config that exists, so every later write reaches it. */
    @Override
    public Subscription subscribeAll(ConfigListener listener) {
        Validation.requireNonNull("listener", listener);
        NamespaceSubscription subscription = new NamespaceSubscription(listener);
        subscription.start();
        if (index.api().awaitLoaded(IndexSource.TOPIC)) {
            subscription.awaitFollowing();
        }
        return subscription;
    }

    @Override
    public ViewStatus status() {
        return ViewReads.combined(ViewReads.combined(entries.api().status(), index.api().status()),
                grays.api().status());
    }

    // ---------------------------------------------------------------- sync API

    @Override
    public ConfigEntry set(String configId, String content, ConfigFormat format) {
        return set0(configId, content, format, ANY_VERSION, false).join();
    }

    @Override
    public ConfigEntry compareAndSet(String configId, String content, ConfigFormat format, long expectedVersion) {
        return set0(configId, content, format, expectedVersion, true).join();
    }

    @Override
    public boolean remove(String configId) {
        return remove0(configId).join();
    }

    @Override
    public void compareAndRemove(String configId, long expectedVersion) {
        remove0(configId, expectedVersion).join();
    }

    @Override
    public Set<String> list() {
        return list0().join();
    }

    @Override
    public List<ConfigEntry> history(String configId) {
        return history0(configId).join();
    }

    @Override
    public Optional<ConfigEntry> getVersion(String configId, long version) {
        return getVersion0(configId, version).join();
    }

    @Override
    public boolean purge(String configId) {
        return purge0(configId).join();
    }

    @Override
    public ConfigEntry rollback(String configId, long version) {
        return rollback0(configId, version).join();
    }

    @Override
    public List<AppliedConfig> applied(String configId) {
        return applied0(configId).join();
    }

    @Override
    public AsyncConfigService async() {
        return async;
    }

    // ---------------------------------------------------------------- operations

    private Call<ConfigEntry> set0(String configId, String content, ConfigFormat format, long expected,
                                   boolean conditional) {
        return calls.start(() -> (conditional ? "compare-and-set" : "set") + " config '" + configId + "'", () -> {
            Validation.Collector checks = Validation.collector().configId("configId", configId)
                    .configContentAsStored("content", content).notNull("format", format);
            if (conditional) {
                checks.range("expectedVersion", expected, 0, Long.MAX_VALUE);
            }
            checks.throwIfInvalid();
            ConfigCodec.Stored stored = codec.encode(configId, content);
            Validation.collector().configContentAsStored("content (as encrypted)", stored.content()).throwIfInvalid();
            return ConfigScripts.SET_CONFIG.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                    keys.config(configId).all(), withWriter(configId, stored.content(), format.name(),
                            Integer.toString(historyLimit), Long.toString(expected), stored.hash()))
                    .thenCompose(reply -> {
                        LuaScript script = ConfigScripts.SET_CONFIG;
                        String kind = Reply.text(reply, 0, script);
                        if ("conflict".equals(kind)) {
                            throw new ConflictException(configId, expected, Reply.number(reply, 1, script));
                        }
                        ConfigEntry entry = new ConfigEntry(configId, content, format, Reply.number(reply, 1, script),
                                Reply.text(reply, 2, script), Instant.ofEpochMilli(Reply.number(reply, 3, script)),
                                Instant.ofEpochMilli(Reply.number(reply, 4, script)));
                        // An update of an existing entry leaves the index as it is: only a creation (or a no-op,
                        // which repairs an index a failed report left behind) costs the second round trip.
                        return "changed".equals(kind)
                                ? Calls.settle(null, entries, configId, entry.version(), entry) : settled(entry);
                    });
        });
    }

    private Call<Boolean> remove0(String configId) {
        return remove0(configId, ANY_VERSION);
    }

    /** Removes in any case ({@link #ANY_VERSION}), or only at {@code expected} (else a {@link ConflictException}). */
    private Call<Boolean> remove0(String configId, long expected) {
        return calls.start(() -> "remove config '" + configId + "'", () -> {
            Validation.Collector checks = Validation.collector().configId("configId", configId);
            if (expected != ANY_VERSION) {
                checks.range("expectedVersion", expected, 1, Long.MAX_VALUE);
            }
            checks.throwIfInvalid();
            LuaScript script = ConfigScripts.REMOVE_CONFIG;
            return script.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                    keys.config(configId).all(), withWriter(configId, Long.toString(expected))).thenCompose(reply -> {
                        if ("conflict".equals(reply.get(0))) {
                            throw new ConflictException(configId, expected, Reply.number(reply, 1, script));
                        }
                        boolean removed = Reply.number(reply, 0, script) == 1L;
                        long version = Reply.number(reply, 1, script);
                        if (version == 0) {
                            return CompletableFuture.completedFuture(false); // never existed
                        }
                        // Reported even when nothing was removed: it repairs an index a failed report left behind.
                        return Calls.settle(() -> index(configId, version, false, ""), entries, configId, version,
                                removed);
                    });
        });
    }

    /**
     * Purges the entry's keys, then its tombstone in the config index (another slot, so another script): without
     * that, the index would take the reports of the entry's next life, counting from version 1, for late ones.
     */
    private Call<Boolean> purge0(String configId) {
        return calls.start(() -> "purge config '" + configId + "'", () -> {
            Validation.requireConfigId(configId);
            return ConfigScripts.PURGE_CONFIG.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                    keys.config(configId).all(), configId).thenCompose(reply -> {
                        long version = (Long) reply.get(1);
                        if ("conflict".equals(reply.get(0))) {
                            throw new ConflictException("Cannot purge config '" + configId + "': it exists (version "
                                    + version + "); remove it first", configId, 0, version);
                        }
                        boolean removed = (Long) reply.get(2) > 0;
                        return Scripts.PURGE_INDEX_ENTRY.<Long>run(backend.commands(), ScriptOutputType.INTEGER,
                                new String[] {keys.configs().index()}, configId, Long.toString(version))
                                .thenApply(forgotten -> removed || forgotten == 1L);
                    });
        });
    }

    private Call<ConfigEntry> rollback0(String configId, long version) {
        return calls.start(() -> "roll config '" + configId + "' back to version " + version, () -> {
            Validation.collector().configId("configId", configId).range("version", version, 1, Long.MAX_VALUE)
                    .throwIfInvalid();
            return ConfigScripts.ROLLBACK_CONFIG.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                    keys.config(configId).all(), withWriter(configId, Long.toString(version),
                            Integer.toString(historyLimit))).thenCompose(reply -> {
                        LuaScript script = ConfigScripts.ROLLBACK_CONFIG;
                        if ("missing".equals(Reply.text(reply, 0, script))) {
                            throw versionNotFound(configId, version, Reply.number(reply, 1, script),
                                    Reply.number(reply, 2, script), Reply.number(reply, 3, script));
                        }
                        return settled(ConfigReads.parse(configId, Reply.text(reply, 1, script)))
                                .thenApply(codec::decode);
                    });
        });
    }

    /**
     * After a write: reports the entry to the namespace index (also when nothing changed, which repairs an index a
     * failed report left behind) and waits until this client's view, if it holds the entry, shows the write.
     */
    private CompletionStage<ConfigEntry> settled(ConfigEntry entry) {
        return Calls.settle(() -> index(entry.id(), entry.version(), true, entry.contentHash()), entries, entry.id(),
                entry.version(), entry);
    }

    private CompletionStage<Long> index(String configId, long version, boolean exists, String hash) {
        return ConfigScripts.INDEX_CONFIG.run(backend.commands(), ScriptOutputType.INTEGER, keys.configs().all(),
                configId, Long.toString(version), exists ? "1" : "0", hash);
    }

    private Call<Set<String>> list0() {
        return calls.start(() -> "list configs", () -> reads.index().thenApply(SyncedView.Versioned::value));
    }

    private Call<List<ConfigEntry>> history0(String configId) {
        return calls.start(() -> "read the history of config '" + configId + "'",
                () -> reads.history(Validation.requireConfigId(configId))
                        .thenApply(versions -> versions.stream().map(codec::decode).toList()));
    }

    private Call<Optional<ConfigEntry>> getVersion0(String configId, long version) {
        return calls.start(() -> "read version " + version + " of config '" + configId + "'", () -> {
            Validation.collector().configId("configId", configId).range("version", version, 1, Long.MAX_VALUE)
                    .throwIfInvalid();
            return reads.version(configId, version).thenApply(found -> found.map(codec::decode));
        });
    }

    private Call<List<AppliedConfig>> applied0(String configId) {
        return calls.start(() -> "read who applied config '" + configId + "'",
                () -> applied.read(Validation.requireConfigId(configId)));
    }

    private NotFoundException versionNotFound(String configId, long version, long oldest, long newest, long kept) {
        String state = kept == 0 ? "no version is kept"
                : "kept: versions " + oldest + ".." + newest + ", " + kept + " of at most " + historyLimit;
        return new NotFoundException("config version", configId + "@" + version, "Version " + version
                + " of config '" + configId + "' is not in its history in namespace '" + namespace + "' (" + state
                + ")");
    }

    // ---------------------------------------------------------------- gray releases and the audit log

    @Override
    public GrayRelease startGray(String configId, String content, ConfigFormat format, GrayRule rule) {
        return grayWrite(configId, content, format, rule, true).join();
    }

    @Override
    public GrayRelease updateGray(String configId, String content, ConfigFormat format, GrayRule rule) {
        return grayWrite(configId, content, format, rule, false).join();
    }

    private Call<GrayRelease> grayWrite(String configId, String content, ConfigFormat format, GrayRule rule,
                                        boolean start) {
        return calls.start(() -> (start ? "start" : "update") + " the gray release of config '" + configId + "'",
                () -> {
                    Validation.collector().configId("configId", configId).configContentAsStored("content", content)
                            .notNull("format", format).notNull("rule", rule).throwIfInvalid();
                    LuaScript script = start ? ConfigScripts.START_GRAY : ConfigScripts.UPDATE_GRAY;
                    String stored = codec.encode(configId, content).content(); // encrypted as a version would be
                    Validation.collector().configContentAsStored("content (as encrypted)", stored).throwIfInvalid();
                    // a new release gets a new salt: its stable percentage picks other instances than the last one
                    String[] args = start
                            ? withWriter(configId, stored, format.name(), rule.toString(), UUID.randomUUID().toString())
                            : withWriter(configId, stored, format.name(), rule.toString());
                    return script.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                            keys.config(configId).all(), args).thenCompose(reply -> {
                                String kind = Reply.text(reply, 0, script);
                                if ("missing".equals(kind)) {
                                    throw start ? new NotFoundException("config", configId, "Config '" + configId
                                            + "' does not exist in namespace '" + namespace
                                            + "': a gray release needs a current version beside it")
                                            : noGray(configId);
                                }
                                GrayRelease release = GraySource.release(configId,
                                        Json.read(Reply.text(reply, 1, script)), keys.config(configId).gray());
                                if ("conflict".equals(kind)) {
                                    throw new ConflictException("Config '" + configId + "' already has a gray release"
                                            + " (revision " + release.revision() + ", rule " + release.rule()
                                            + "): update, promote or abort it", configId, 0, release.revision());
                                }
                                return Calls.settle(null, grays, configId, release.revision(),
                                        codec.decode(release));
                            });
                });
    }

    @Override
    public ConfigEntry promoteGray(String configId, long expectedVersion) {
        return promoteGray0(configId, expectedVersion).join();
    }

    private Call<ConfigEntry> promoteGray0(String configId, long expectedVersion) {
        return calls.start(() -> "promote the gray release of config '" + configId + "'", () -> {
            Validation.collector().configId("configId", configId).range("expectedVersion", expectedVersion, -1,
                    Long.MAX_VALUE).throwIfInvalid();
            LuaScript script = ConfigScripts.PROMOTE_GRAY;
            return script.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI, keys.config(configId).all(),
                    withWriter(configId, Long.toString(expectedVersion), Integer.toString(historyLimit)))
                    .thenCompose(reply -> {
                        String kind = Reply.text(reply, 0, script);
                        if ("missing".equals(kind)) {
                            throw noGray(configId);
                        }
                        if ("conflict".equals(kind)) {
                            throw new ConflictException(configId, expectedVersion, Reply.number(reply, 1, script));
                        }
                        return settled(ConfigReads.parse(configId, Reply.text(reply, 1, script)));
                    });
        });
    }

    @Override
    public boolean abortGray(String configId) {
        return abortGray0(configId).join();
    }

    private Call<Boolean> abortGray0(String configId) {
        return calls.start(() -> "abort the gray release of config '" + configId + "'", () -> {
            Validation.requireConfigId(configId);
            return ConfigScripts.ABORT_GRAY.<List<Object>>run(backend.commands(), ScriptOutputType.MULTI,
                    keys.config(configId).all(), withWriter(configId)).thenCompose(reply -> {
                        if (Reply.number(reply, 0, ConfigScripts.ABORT_GRAY) == 0L) {
                            return CompletableFuture.completedFuture(false);
                        }
                        return Calls.settle(null, grays, configId, Reply.number(reply, 1, ConfigScripts.ABORT_GRAY),
                                true);
                    });
        });
    }

    @Override
    public Optional<GrayRelease> gray(String configId) {
        return gray0(configId).join();
    }

    private Call<Optional<GrayRelease>> gray0(String configId) {
        return calls.start(() -> "read the gray release of config '" + configId + "'",
                () -> graySource.readRelease(Validation.requireConfigId(configId))
                        .thenApply(read -> Optional.ofNullable(read.value().release()).map(codec::decode)));
    }

    @Override
    public List<ConfigAudit> log(String configId, int limit) {
        return log0(configId, limit).join();
    }

    private Call<List<ConfigAudit>> log0(String configId, int limit) {
        return calls.start(() -> "read the audit log of config '" + configId + "'", () -> {
            Validation.collector().configId("configId", configId).range("limit", limit, 1, 10_000).throwIfInvalid();
            return backend.commands().xrevrange(keys.config(configId).log(), Range.create("-", "+"),
                    Limit.create(0, limit)).thenApply(records -> {
                        List<ConfigAudit> log = new ArrayList<>(records.size());
                        records.forEach(record -> log.add(audit(configId, record.getId(), record.getBody())));
                        return log;
                    });
        });
    }

    /** One audit record as config_common.lua writes it; the stream id's first part is its Redis time. */
    private static ConfigAudit audit(String configId, String streamId, Map<String, String> fields) {
        long millis = Long.parseLong(streamId.substring(0, streamId.indexOf('-')));
        return new ConfigAudit(configId, Instant.ofEpochMilli(millis), fields.get("op"),
                Long.parseLong(fields.getOrDefault("version", "0")), Long.parseLong(fields.getOrDefault("prev", "0")),
                fields.getOrDefault("hash", ""), fields.getOrDefault("client", ""), fields.getOrDefault("host", ""));
    }

    private NotFoundException noGray(String configId) {
        return new NotFoundException("gray release", configId, "Config '" + configId
                + "' has no gray release in namespace '" + namespace + "'");
    }

    // ---------------------------------------------------------------- wiring (called by the client)

    void resyncAll() {
        entries.resyncAll();
        index.resyncAll();
        grays.resyncAll();
    }

    void reconcile() {
        entries.reconcile();
        index.reconcile();
        grays.reconcile();
    }

    /** Every sweep interval: renews this client's records of the versions it applied (see AppliedRecords). */
    void renewApplied() {
        applied.renew(entries.api().peekHeld());
    }

    void markStale() {
        entries.markStale();
        index.markStale();
        grays.markStale();
    }

    /** The view of config entries (metrics, tests). */
    SyncedView<Optional<ConfigEntry>, ConfigEvent> entriesView() {
        return entries;
    }

    /** The view of the namespace's config index (metrics). */
    SyncedView<Set<String>, ServicesChanged> indexView() {
        return index;
    }

    void close() {
        applied.close(backend.timeout());
        entries.close();
        index.close();
        grays.close();
    }

    // ---------------------------------------------------------------- namespace listeners

    /**
     * A listener of every config of the namespace: it follows each config's effective entry exactly like a per-id
     * listener (each entry's versions in order, or the gray content in a client a release applies to), and the
     * namespace index tells it about entries created later, whose effective state when it starts following them is
     * delivered as a {@link ConfigChanged}. All calls go
     * through one serial executor, so the listener is never called concurrently.
     */
    private final class NamespaceSubscription implements Subscription {
        private final ConfigListener listener;
        private final Executor serial = new SerialExecutor(listenerPool);
        private final Map<String, Subscription> followed = new ConcurrentHashMap<>();
        private final CompletableFuture<Set<String>> following = new CompletableFuture<>();
        private volatile Subscription indexSubscription;
        private volatile boolean closed;

        NamespaceSubscription(ConfigListener listener) {
            this.listener = listener;
        }

        void start() {
            indexSubscription = index.api().subscribe(IndexSource.TOPIC,
                    change -> change.added().forEach(id -> follow(id, true)),
                    initial -> {
                        initial.value().forEach(id -> follow(id, false));
                        following.complete(initial.value());
                    });
        }

        /** Waits (bounded) until the configs that existed at the start are followed and loaded. */
        void awaitFollowing() {
            try {
                Set<String> existing = following.get(backend.timeout().toMillis(), TimeUnit.MILLISECONDS);
                existing.forEach(effective::awaitLoaded);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // the subscription stays: entries start as the view loads them
            }
        }

        private void follow(String configId, boolean created) {
            if (closed) {
                return;
            }
            // the effective entry, as per-config listeners get it: a client in a gray set hears the gray content
            Subscription subscription = followed.computeIfAbsent(configId, id -> effective.follow(id, this::deliver,
                    created ? start -> start.ifPresentOrElse(this::deliver, () -> unfollow(id)) : start -> { },
                    listenerPool));
            if (closed) {
                subscription.close();
            }
        }

        /**
         * An id the index announced but Redis does not hold (removed since, or a forged event): following it would
         * pin it for as long as the listener lives, so what one listener pins is bounded by the configs that exist;
         * and its entry, empty, is released at once rather than held (subscribed) for the idle timeout, so a flood of
         * forged ids holds no more than those loading. If it is created later, the index announces it again.
         */
        private void unfollow(String configId) {
            Subscription subscription = followed.remove(configId);
            if (subscription != null) {
                subscription.close();
                effective.releaseAbsent(configId);
            }
        }

        private void deliver(ConfigEvent event) {
            if (!closed) {
                serial.execute(() -> {
                    if (!closed) {
                        RedisConfigService.this.deliver(listener, event);
                    }
                });
            }
        }

        @Override
        public void close() {
            closed = true;
            Subscription subscription = indexSubscription;
            if (subscription != null) {
                subscription.close();
            }
            followed.values().forEach(Subscription::close);
        }
    }

    // ---------------------------------------------------------------- async API

    private final class Async implements AsyncConfigService {
        @Override
        public CompletionStage<Optional<ConfigEntry>> get(String configId) {
            Optional<ConfigEntry> held = configId == null ? null : entries.api().getIfHeld(configId);
            if (held != null && !effective.loadsRelease(configId, held)) {
                try {
                    return CompletableFuture.completedFuture(codec.decode(effective.effective(configId, held)));
                } catch (ConfigEncryptionException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            // the effective entry may load the release (blocking, bounded): off the caller's thread
            return calls.start(() -> "read config '" + configId + "'", () -> entries.api().loadAsync(
                    Validation.requireConfigId(configId)).thenApplyAsync(loaded ->
                            codec.decode(effective.effective(configId, loaded.value())), listenerPool))
                    .published();
        }

        @Override
        public CompletionStage<ConfigEntry> set(String configId, String content, ConfigFormat format) {
            return set0(configId, content, format, ANY_VERSION, false).published();
        }

        @Override
        public CompletionStage<ConfigEntry> compareAndSet(String configId, String content, ConfigFormat format,
                                                          long expectedVersion) {
            return set0(configId, content, format, expectedVersion, true).published();
        }

        @Override
        public CompletionStage<Boolean> remove(String configId) {
            return remove0(configId).published();
        }

        @Override
        public CompletionStage<Void> compareAndRemove(String configId, long expectedVersion) {
            return remove0(configId, expectedVersion).published().thenApply(removed -> null);
        }

        @Override
        public CompletionStage<Set<String>> list() {
            return list0().published();
        }

        @Override
        public CompletionStage<List<ConfigEntry>> history(String configId) {
            return history0(configId).published();
        }

        @Override
        public CompletionStage<Optional<ConfigEntry>> getVersion(String configId, long version) {
            return getVersion0(configId, version).published();
        }

        @Override
        public CompletionStage<ConfigEntry> rollback(String configId, long version) {
            return rollback0(configId, version).published();
        }

        @Override
        public CompletionStage<List<AppliedConfig>> applied(String configId) {
            return applied0(configId).published();
        }

        @Override
        public CompletionStage<GrayRelease> startGray(String configId, String content, ConfigFormat format,
                                                      GrayRule rule) {
            return grayWrite(configId, content, format, rule, true).published();
        }

        @Override
        public CompletionStage<GrayRelease> updateGray(String configId, String content, ConfigFormat format,
                                                       GrayRule rule) {
            return grayWrite(configId, content, format, rule, false).published();
        }

        @Override
        public CompletionStage<ConfigEntry> promoteGray(String configId, long expectedVersion) {
            return promoteGray0(configId, expectedVersion).published();
        }

        @Override
        public CompletionStage<Boolean> abortGray(String configId) {
            return abortGray0(configId).published();
        }

        @Override
        public CompletionStage<Optional<GrayRelease>> gray(String configId) {
            return gray0(configId).published();
        }

        @Override
        public CompletionStage<List<ConfigAudit>> log(String configId, int limit) {
            return log0(configId, limit).published();
        }
    }
}
