package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ConfigEntry;
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
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The local snapshot directory ({@code configSnapshotDirectory}): the last state the view read from Redis of each
 * config it holds, one JSON file per config under {@code <directory>/<namespace>/}. A file is replaced atomically
 * (written to a temporary file, forced to disk, then moved over the old one), so a reader never sees half a file;
 * an entry Redis says is absent has no file. Files are only read when Redis cannot be reached while a config is
 * first loaded.
 *
 * <p>A file is tied to the Redis deployment it was read from (the client's Redis URI, without credentials) and
 * names the incarnation of the config's keys (see common.lua): a client of another deployment ignores it, and a view
 * treats a restored value as one Redis may no longer hold (it loads the config whole once Redis answers, and tells
 * listeners what differs), because Redis may have lost its data and been written again since.
 *
 * <p>Writes run on a serial executor off the view thread and coalesce: when several versions of one config arrive
 * quickly only the newest is written. A file that fails a check (other namespace or id, content hash) is ignored.
 */
final class ConfigSnapshots {
    private static final Logger log = LoggerFactory.getLogger(ConfigSnapshots.class);
    private static final int READABLE_PREFIX = 64;
    private static final Duration ORPHAN_AGE = Duration.ofHours(1);

    private final Path directory;
    private final String namespace;
    private final String deployment;
    private final Executor writer;
    private final Map<String, Saved> pending = new ConcurrentHashMap<>();
    private volatile boolean prepared;
    private volatile boolean warned;

    /** A state to write: the entry (empty: absent) and the incarnation of its keys (null: unknown). */
    private record Saved(Optional<ConfigEntry> entry, String incarnation) {
    }

    private ConfigSnapshots(Path directory, String namespace, String deployment, Executor writer) {
        this.directory = directory;
        this.namespace = namespace;
        this.deployment = deployment;
        this.writer = writer;
    }

    /**
     * @param deployment the Redis deployment the states come from (the redacted Redis URI): a file written for
     *                   another one is never read
     * @return a store, or one that does nothing when no directory is configured
     */
    static ConfigSnapshots of(Optional<Path> root, String namespace, String deployment, Executor pool) {
        return new ConfigSnapshots(root.map(dir -> dir.resolve(namespace)).orElse(null), namespace, deployment,
                new SerialExecutor(pool));
    }

    boolean enabled() {
        return directory != null;
    }

    /**
     * Records the state the view just read of a config (empty: it does not exist) and the incarnation of its keys
     * (null: unknown); written soon, off this thread.
     */
    void save(String id, Optional<ConfigEntry> entry, String incarnation) {
        if (directory == null) {
            return;
        }
        if (pending.put(id, new Saved(entry, incarnation)) == null) {
            writer.execute(() -> flush(id));
        }
    }

    /**
     * @return the last saved state of a config at its version, with the incarnation it was read from (null when the
     *     file names none), or null when there is none (or it cannot be trusted, or it is another deployment's)
     */
    SyncedView.Versioned<Optional<ConfigEntry>> read(String id) {
        if (directory == null) {
            return null;
        }
        Path file = file(id);
        try {
            Map<String, Object> fields = Json.read(Files.readString(file, StandardCharsets.UTF_8));
            String content = (String) fields.get("content");
            if (!namespace.equals(fields.get("namespace")) || !id.equals(fields.get("id"))
                    || content == null || !sha1(content).equals(fields.get("hash"))) {
                log.warn("Ignoring config snapshot {}: it is not a valid snapshot of '{}' in namespace '{}'", file,
                        id, namespace);
                return null;
            }
            if (!deployment.equals(fields.get("redis"))) {
                log.warn("Ignoring config snapshot {} of '{}': it was read from {}, not from Redis at {}", file, id,
                        fields.get("redis") == null ? "an unnamed Redis (a file of an older version)"
                                : "Redis at " + Validation.show(fields.get("redis")), deployment);
                return null;
            }
            ConfigEntry entry = ConfigReads.parse(id, fields);
            return new SyncedView.Versioned<>(entry.version(), Optional.of(entry), null,
                    fields.get("incarnation") instanceof String incarnation ? incarnation : null);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | RuntimeException e) {
            log.warn("Ignoring unreadable config snapshot {}: {}", file, e.toString());
            return null;
        }
    }

    /** The file of a config: a readable part plus a hash of the id, so any id is a safe, unique file name. */
    Path file(String id) {
        StringBuilder readable = new StringBuilder();
        for (int i = 0; i < id.length() && readable.length() < READABLE_PREFIX; i++) {
            char c = id.charAt(i);
            readable.append(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
                    ? c : '_');
        }
        String hash = HexFormat.of().formatHex(digest("SHA-256", id), 0, 16);
        return directory.resolve(readable + "-" + hash + ".json");
    }

    private void flush(String id) {
        Saved saved = pending.remove(id);
        if (saved == null) {
            return;
        }
        try {
            if (saved.entry().isEmpty()) {
                Files.deleteIfExists(file(id));
            } else {
                write(id, saved.entry().get(), saved.incarnation());
            }
        } catch (IOException | RuntimeException e) {
            if (!warned) {
                warned = true;
                log.warn("Cannot write the config snapshot of '{}' to {} (further failures are logged at debug): {}",
                        id, directory, e.toString());
            } else {
                log.debug("Cannot write the config snapshot of '{}': {}", id, e.toString());
            }
        }
    }

    private void write(String id, ConfigEntry entry, String incarnation) throws IOException {
        prepare();
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("namespace", namespace);
        fields.put("id", id);
        fields.put("redis", deployment);
        if (incarnation != null) {
            fields.put("incarnation", incarnation);
        }
        fields.put("version", entry.version());
        fields.put("format", entry.format().name());
        fields.put("hash", entry.contentHash());
        fields.put("createdAt", entry.createdAt().toEpochMilli());
        fields.put("updatedAt", entry.updatedAt().toEpochMilli());
        fields.put("savedAt", Instant.now().toString());
        fields.put("content", entry.content());
        Path target = file(id);
        Path temporary = Files.createTempFile(directory, ".tmp-", ".json");
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer bytes = ByteBuffer.wrap(Json.write(fields).getBytes(StandardCharsets.UTF_8));
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
    }

    /** Creates the directory, and deletes temporary files a crashed process left behind (an hour old or more). */
    private void prepare() throws IOException {
        if (prepared) {
            return;
        }
        Files.createDirectories(directory);
        Instant orphan = Instant.now().minus(ORPHAN_AGE);
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(directory, ".tmp-*.json")) {
            for (Path leftover : leftovers) {
                if (Files.getLastModifiedTime(leftover).toInstant().isBefore(orphan)) {
                    Files.deleteIfExists(leftover);
                }
            }
        }
        prepared = true;
    }

    static String sha1(String content) {
        return HexFormat.of().formatHex(digest("SHA-1", content));
    }

    private static byte[] digest(String algorithm, String text) {
        try {
            return MessageDigest.getInstance(algorithm).digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is required of every JDK", e);
        }
    }
}
