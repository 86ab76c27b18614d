package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local snapshot directory: the last state a view read from Redis of each topic it holds, one JSON file per topic.
 * One store serves both kinds, each with its {@link Codec}: configs ({@code configSnapshotDirectory}, files under
 * {@code <directory>/<namespace>/}) and services ({@code serviceSnapshotDirectory}, files under
 * {@code <directory>/<namespace>/services/}, so both options may name one directory). Files are only read when Redis
 * cannot be reached while a topic is first loaded.
 *
 * <p>A file is replaced atomically: written to a temporary file (owner-only on POSIX), forced to disk, moved over the
 * old one, then the directory is forced too, so a crash leaves the old file or the new one, never half of one. A
 * state the codec calls absent (a config that does not exist) has no file. At most {@link #MAX_FILES} files per
 * directory and {@link #MAX_FILE_BYTES} per file: past either, a state is not written (logged once), and a larger file
 * is never read.
 *
 * <p>A file is tied to the namespace, the topic and the Redis deployment it was read from (the client's Redis URI,
 * without credentials), and names the incarnation of the topic's keys (see common.lua): a client of another namespace
 * or deployment refuses it (one WARN per store, then DEBUG), and a view treats a restored value as one Redis may no
 * longer hold (it loads the topic whole once Redis answers, and tells listeners what differs), because Redis may have
 * lost its data and been written again since. A file that fails its codec's check (content hash, a field missing,
 * truncated) is skipped, never served.
 *
 * <p>Writes run on a serial executor off the view thread and coalesce: when several states of one topic arrive
 * quickly only the newest is written.
 *
 * @param <T> the value of a topic
 */
final class Snapshots<T> {
    private static final Logger log = LoggerFactory.getLogger(Snapshots.class);
    /** Most files per directory: a view may hold 100,000 topics, but the disk copy is for the ones an app calls. */
    static final int MAX_FILES = 10_000;
    /** Largest file written or read: about 100,000 instances. */
    static final long MAX_FILE_BYTES = 64L << 20;
    private static final int READABLE_PREFIX = 64;
    private static final Duration ORPHAN_AGE = Duration.ofHours(1);
    private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");

    /** What a kind of topic writes into its file and reads back. */
    interface Codec<T> {
        /** The kind, for log lines: "config", "service". */
        String kind();

        /** Whether a state is absent: its file is deleted. */
        boolean absent(T value);

        /** Puts the fields of a state (beside the store's: namespace, id, redis, incarnation, savedAt). */
        void write(String id, SyncedView.Versioned<T> state, Map<String, Object> fields);

        /**
         * The state a file's fields hold, with {@code incarnation}.
         *
         * @throws RuntimeException when they do not hold a whole, valid state (a hash that does not match, a field
         *                          missing or of the wrong type)
         */
        SyncedView.Versioned<T> read(String id, Map<String, Object> fields, String incarnation);
    }

    private final Path directory;
    private final String namespace;
    private final String deployment;
    private final Codec<T> codec;
    private final Executor writer;
    private final Map<String, SyncedView.Versioned<T>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger files = new AtomicInteger();
    private volatile boolean prepared;
    private volatile boolean warnedWrite;
    private volatile boolean warnedRefused;
    private volatile boolean warnedFull;

    private Snapshots(Path directory, String namespace, String deployment, Codec<T> codec, Executor writer) {
        this.directory = directory;
        this.namespace = namespace;
        this.deployment = deployment;
        this.codec = codec;
        this.writer = writer;
    }

    /**
     * The config snapshots of a namespace, under {@code <root>/<namespace>/}.
     *
     * @param deployment the Redis deployment the states come from (the redacted Redis URI): a file written for
     *                   another one is never read
     * @return a store, or one that does nothing when no directory is configured
     */
    static Snapshots<Optional<ConfigEntry>> configs(Optional<Path> root, String namespace, String deployment,
                                                    Executor pool) {
        return new Snapshots<>(root.map(dir -> dir.resolve(namespace)).orElse(null), namespace, deployment,
                new ConfigFiles(), new SerialExecutor(pool));
    }

    /** The service snapshots of a namespace, under {@code <root>/<namespace>/services/} (see {@link #configs}). */
    static Snapshots<ServiceSnapshot> services(Optional<Path> root, String namespace, String deployment,
                                               Executor pool) {
        return new Snapshots<>(root.map(dir -> dir.resolve(namespace).resolve("services")).orElse(null), namespace,
                deployment, new ServiceFiles(), new SerialExecutor(pool));
    }

    boolean enabled() {
        return directory != null;
    }

    /** Records the state a view now holds of a topic (never a restored one); written soon, off this thread. */
    void save(String id, SyncedView.Versioned<T> state) {
        if (directory == null) {
            return;
        }
        if (pending.put(id, state) == null) {
            writer.execute(() -> flush(id));
        }
    }

    /**
     * @return the last saved state of a topic, with the incarnation it was read from (null when the file names none),
     *     or null when there is none (or it cannot be trusted, or it is another namespace's or deployment's)
     */
    SyncedView.Versioned<T> read(String id) {
        if (directory == null) {
            return null;
        }
        Path file = file(id);
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                log.warn("Ignoring {} snapshot {}: {} bytes, more than the {} a snapshot may have", codec.kind(),
                        file, size, MAX_FILE_BYTES);
                return null;
            }
            Map<String, Object> fields = Json.read(Files.readString(file, StandardCharsets.UTF_8));
            if (!namespace.equals(fields.get("namespace")) || !id.equals(fields.get("id"))) {
                refused("Ignoring {} snapshot {}: it is not a snapshot of '{}' in namespace '{}' (it names '{}' in"
                        + " namespace '{}')", codec.kind(), file, id, namespace, Validation.show(fields.get("id")),
                        Validation.show(fields.get("namespace")));
                return null;
            }
            if (!deployment.equals(fields.get("redis"))) {
                refused("Ignoring {} snapshot {} of '{}': it was read from {}, not from Redis at {}", codec.kind(),
                        file, id, fields.get("redis") == null ? "an unnamed Redis (a file of an older version)"
                                : "Redis at " + Validation.show(fields.get("redis")), deployment);
                return null;
            }
            return codec.read(id, fields, fields.get("incarnation") instanceof String incarnation ? incarnation : null);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | RuntimeException e) {
            log.warn("Ignoring unreadable {} snapshot {} (corrupt or truncated): {}", codec.kind(), file,
                    e.toString());
            return null;
        }
    }

    /** Another namespace's or deployment's file: WARN once per store (a copied directory has many), then DEBUG. */
    private void refused(String message, Object... arguments) {
        if (!warnedRefused) {
            warnedRefused = true;
            log.warn(message + " (further snapshots refused so are logged at debug)", arguments);
        } else {
            log.debug(message, arguments);
        }
    }

    /** The file of a topic: a readable part plus a hash of the id, so any id is a safe, unique file name. */
    Path file(String id) {
        StringBuilder readable = new StringBuilder();
        for (int i = 0; i < id.length() && readable.length() < READABLE_PREFIX; i++) {
            char c = id.charAt(i);
            readable.append(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
                    ? c : '_');
        }
        String hash = HexFormat.of().formatHex(Digests.of("SHA-256", id), 0, 16);
        return directory.resolve(readable + "-" + hash + ".json");
    }

    private void flush(String id) {
        SyncedView.Versioned<T> saved = pending.remove(id);
        if (saved == null) {
            return;
        }
        try {
            prepare();
            Path target = file(id);
            if (codec.absent(saved.value())) {
                if (Files.deleteIfExists(target)) {
                    files.decrementAndGet();
                }
            } else {
                write(id, saved, target);
            }
        } catch (IOException | RuntimeException e) {
            if (!warnedWrite) {
                warnedWrite = true;
                log.warn("Cannot write the {} snapshot of '{}' to {} (further failures are logged at debug): {}",
                        codec.kind(), id, directory, e.toString());
            } else {
                log.debug("Cannot write the {} snapshot of '{}': {}", codec.kind(), id, e.toString());
            }
        }
    }

    private void write(String id, SyncedView.Versioned<T> state, Path target) throws IOException {
        boolean replaces = Files.exists(target);
        if (!replaces && files.get() >= MAX_FILES) {
            full("{} snapshots in {} hold their limit of {} files: '{}' and further new ones are not written",
                    codec.kind(), directory, MAX_FILES, id);
            return;
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("namespace", namespace);
        fields.put("id", id);
        fields.put("redis", deployment);
        if (state.incarnation() != null) {
            fields.put("incarnation", state.incarnation());
        }
        fields.put("savedAt", Instant.now().toString());
        codec.write(id, state, fields);
        byte[] text = Json.write(fields).getBytes(StandardCharsets.UTF_8);
        if (text.length > MAX_FILE_BYTES) {
            full("The {} snapshot of '{}' would take {} bytes, more than the {} a snapshot may have: not written",
                    codec.kind(), id, text.length, MAX_FILE_BYTES);
            return;
        }
        Path temporary = Files.createTempFile(directory, ".tmp-", ".json"); // owner-only on POSIX (0600)
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer bytes = ByteBuffer.wrap(text);
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                // Some file systems cannot rename atomically; a replace is the best they offer.
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        if (!replaces) {
            files.incrementAndGet();
        }
        forceDirectory();
    }

    /** A bound was reached: WARN once per store, then DEBUG. */
    private void full(String message, Object... arguments) {
        if (!warnedFull) {
            warnedFull = true;
            log.warn(message, arguments);
        } else {
            log.debug(message, arguments);
        }
    }

    /** Forces the rename to disk: without it a crash may lose the new name (POSIX; elsewhere not possible). */
    private void forceDirectory() {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            log.debug("Cannot force the snapshot directory {} to disk: {}", directory, e.toString());
        }
    }

    /**
     * Creates the directory (owner-only on POSIX), counts its files, and deletes temporary files a crashed process
     * left behind (an hour old or more).
     */
    private void prepare() throws IOException {
        if (prepared) {
            return;
        }
        if (directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
        } else {
            Files.createDirectories(directory);
        }
        Instant orphan = Instant.now().minus(ORPHAN_AGE);
        int count = 0;
        try (DirectoryStream<Path> all = Files.newDirectoryStream(directory, "*.json")) {
            for (Path file : all) {
                if (!file.getFileName().toString().startsWith(".tmp-")) {
                    count++;
                } else if (Files.getLastModifiedTime(file).toInstant().isBefore(orphan)) {
                    Files.deleteIfExists(file);
                }
            }
        }
        files.set(count);
        prepared = true;
    }

    /** A config: its entry's fields as history keeps them; its content hash proves the content whole. */
    private static final class ConfigFiles implements Codec<Optional<ConfigEntry>> {
        @Override
        public String kind() {
            return "config";
        }

        @Override
        public boolean absent(Optional<ConfigEntry> value) {
            return value.isEmpty();
        }

        @Override
        public void write(String id, SyncedView.Versioned<Optional<ConfigEntry>> state, Map<String, Object> fields) {
            ConfigEntry entry = state.value().orElseThrow();
            fields.put("version", entry.version());
            fields.put("format", entry.format().name());
            fields.put("hash", entry.contentHash());
            fields.put("createdAt", entry.createdAt().toEpochMilli());
            fields.put("updatedAt", entry.updatedAt().toEpochMilli());
            fields.put("content", entry.content());
        }

        @Override
        public SyncedView.Versioned<Optional<ConfigEntry>> read(String id, Map<String, Object> fields,
                                                                 String incarnation) {
            String content = (String) fields.get("content");
            if (content == null || !Digests.sha1Hex(content).equals(fields.get("hash"))) {
                throw new IllegalArgumentException("its content does not match its hash");
            }
            ConfigEntry entry = ConfigReads.parse(id, fields);
            return new SyncedView.Versioned<>(entry.version(), Optional.of(entry), null, incarnation);
        }
    }

    /**
     * A service: its revision and digest, and each instance as Redis stores it (with registeredAt); a hash over the
     * instances proves the list whole.
     */
    private static final class ServiceFiles implements Codec<ServiceSnapshot> {
        @Override
        public String kind() {
            return "service";
        }

        @Override
        public boolean absent(ServiceSnapshot value) {
            return false; // an empty service is a state to restore too
        }

        @Override
        public void write(String id, SyncedView.Versioned<ServiceSnapshot> state, Map<String, Object> fields) {
            List<Map<String, Object>> instances = new ArrayList<>(state.value().instances().size());
            for (ServiceInstance instance : state.value().instances()) {
                Map<String, Object> stored = new LinkedHashMap<>();
                stored.put("id", instance.instanceId());
                stored.put("stored", stored(instance));
                instances.add(stored);
            }
            fields.put("revision", state.revision());
            if (state.digest() != null) {
                fields.put("digest", state.digest());
            }
            fields.put("hash", hash(instances));
            fields.put("instances", instances);
        }

        @Override
        @SuppressWarnings("unchecked")
        public SyncedView.Versioned<ServiceSnapshot> read(String id, Map<String, Object> fields, String incarnation) {
            List<Map<String, Object>> stored = (List<Map<String, Object>>) fields.get("instances");
            if (stored == null || !hash(stored).equals(fields.get("hash"))) {
                throw new IllegalArgumentException("its instances do not match its hash");
            }
            List<ServiceInstance> instances = new ArrayList<>(stored.size());
            for (Map<String, Object> instance : stored) {
                instances.add(Json.instance(id, (String) instance.get("id"), (String) instance.get("stored")));
            }
            long revision = ((Number) fields.get("revision")).longValue();
            return new SyncedView.Versioned<>(revision, new ServiceSnapshot(id, revision, instances),
                    (String) fields.get("digest"), incarnation);
        }

        /** The stored form of an instance with its registeredAt (what Redis adds to it). */
        private static String stored(ServiceInstance instance) {
            String json = Json.instance(instance);
            return instance.registeredAt() == null ? json : json.substring(0, json.length() - 1)
                    + ",\"registeredAt\":" + instance.registeredAt().toEpochMilli() + "}";
        }

        private static String hash(List<Map<String, Object>> instances) {
            StringBuilder all = new StringBuilder();
            for (Map<String, Object> instance : instances) {
                all.append(instance.get("id")).append('\n').append(instance.get("stored")).append('\n');
            }
            return Digests.sha1Hex(all.toString());
        }
    }
}
