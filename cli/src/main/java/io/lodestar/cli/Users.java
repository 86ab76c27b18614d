package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.core.internal.Validation;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Who may use the console: users, each with a token and a role per namespace, read from a users file (see
 * docs/cli.md), or the two shared tokens of a console started without one. A request's token names its user, and
 * that user is who the audit log names.
 *
 * <p>Only SHA-256 digests of the tokens are kept, and compared in constant time: a token is long and random, so its
 * digest cannot be reversed, and the file may hold the digests instead of the tokens ({@code sha256:<hex>}).
 */
final class Users {
    /** A role given for this namespace name applies to every namespace the console serves. */
    static final String EVERY_NAMESPACE = "*";
    static final int MIN_TOKEN_LENGTH = 8;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-fA-F]{64}");
    private static final Set<String> USER_FIELDS = Set.of("token", "roles");

    /** What a user may do in a namespace; each role allows what the ones before it allow. */
    enum Role {
        /** See services, instances, configs, their history and the audit log. */
        READ,
        /** Also change: set, create and roll back configs, an instance's status, metadata and weight. */
        WRITE,
        /** Also remove: delete configs, evict instances. */
        ADMIN;

        boolean allows(Role needed) {
            return compareTo(needed) >= 0;
        }

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A user the console knows.
     *
     * @param name  who the audit log names
     * @param roles per namespace name, or {@link #EVERY_NAMESPACE}
     */
    record User(String name, Map<String, Role> roles) {
        User {
            roles = Map.copyOf(roles);
        }

        /** The user's role in a namespace, or null when they may not even see it. */
        Role roleIn(String namespace) {
            Role role = roles.get(namespace);
            return role != null ? role : roles.get(EVERY_NAMESPACE);
        }
    }

    private record Entry(User user, byte[] digest) {
        @Override
        public String toString() {
            return user.toString(); // never the digest
        }
    }

    /** The users, when they never change (shared tokens, or a file read once); else null. */
    private final List<Entry> fixed;
    /** The users of a watched file; else null. */
    private final Reload reload;

    private Users(List<Entry> fixed, Reload reload) {
        this.fixed = fixed == null ? null : List.copyOf(fixed);
        this.reload = reload;
    }

    /**
     * A console without a users file: the write token is user {@code token} (admin everywhere), the read token user
     * {@code read-token} (read everywhere).
     *
     * @param readToken null when there is none
     */
    static Users ofTokens(String writeToken, String readToken) {
        List<Entry> entries = new ArrayList<>();
        entries.add(new Entry(new User("token", Map.of(EVERY_NAMESPACE, Role.ADMIN)), digest(writeToken)));
        if (readToken != null) {
            entries.add(new Entry(new User("read-token", Map.of(EVERY_NAMESPACE, Role.READ)), digest(readToken)));
        }
        return new Users(entries, null);
    }

    /**
     * Reads a users file (YAML; only its owner may read it, as a token file):
     * <pre>
     * users:
     *   alice:
     *     token: sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae   # or the token itself
     *     roles: {prod: read, staging: admin}
     *   bob:
     *     token: ...
     *     roles: {"*": write}
     * </pre>
     *
     * @throws ExitCodes.UsageException naming every broken rule, with the file's name (never a token)
     */
    static Users load(Path file) {
        return new Users(read(file), null);
    }

    /**
     * Reads a users file as {@link #load} does, and again whenever it changed, so that a user removed from it (or
     * given another role or token) is refused within about {@code every} without a restart. A change is seen by a
     * stat (modification time, size and file key: an edit in place or a file renamed over it), at most once per
     * {@code every}, on a request. A changed file that breaks a rule (or may be read by others) is not used: the
     * users read before stay in force, and {@code log} gets one WARN line per such change, naming what is wrong.
     *
     * @throws ExitCodes.UsageException when the file breaks a rule now
     */
    static Users watch(Path file, Duration every, PrintStream log) {
        Object stamp = Reload.stamp(file);
        return new Users(null, new Reload(file, every, log, stamp, read(file)));
    }

    private static List<Entry> read(Path file) {
        String text = Tokens.readOwnerOnly(file, "the users file");
        JsonNode root;
        try {
            root = Output.Mappers.YAML.readTree(text);
        } catch (IOException e) {
            throw new ExitCodes.UsageException("the users file " + file + " must be YAML: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        List<String> broken = new ArrayList<>();
        List<Entry> entries = new ArrayList<>();
        JsonNode users = root == null ? null : root.get("users");
        if (users == null || !users.isObject() || users.isEmpty()) {
            broken.add("users must be a map of at least one user, but was " + (users == null ? "absent" : users));
        } else {
            for (Map.Entry<String, JsonNode> user : users.properties()) {
                Entry entry = user(user.getKey(), user.getValue(), broken);
                if (entry != null) {
                    entries.add(entry);
                }
            }
        }
        Map<String, String> owners = new LinkedHashMap<>();
        for (Entry entry : entries) {
            String other = owners.putIfAbsent(HexFormat.of().formatHex(entry.digest()), entry.user().name());
            if (other != null) {
                broken.add("users." + entry.user().name() + ".token must differ from every other user's token,"
                        + " but was the same as " + other + "'s");
            }
        }
        if (!broken.isEmpty()) {
            throw new ExitCodes.UsageException("the users file " + file + ": " + String.join("; ", broken));
        }
        return entries;
    }

    /**
     * Checks a watched users file for a change, on the request threads: a stat per {@code every} at most, the file
     * read only when the stat differs. The stat is taken before the read, so an edit that lands during the read is
     * seen at the next check.
     */
    private static final class Reload {
        private final Path file;
        private final long everyNanos;
        private final PrintStream log;
        private volatile long nextCheck;
        /** The users in force: replaced whole, under the lock, by a valid new version of the file. */
        private volatile List<Entry> entries;
        /** Guarded by this: the stat of the version in force, or of the broken one already warned about. */
        private Object stamp;

        Reload(Path file, Duration every, PrintStream log, Object stamp, List<Entry> entries) {
            this.file = file;
            this.everyNanos = every.toNanos();
            this.log = log;
            this.stamp = stamp;
            this.entries = List.copyOf(entries);
            this.nextCheck = System.nanoTime() + everyNanos;
        }

        /** The users in force, after a look at the file when one is due. */
        List<Entry> current() {
            if (System.nanoTime() - nextCheck >= 0) {
                check();
            }
            return entries;
        }

        private synchronized void check() {
            long now = System.nanoTime();
            if (now - nextCheck < 0) {
                return; // another request looked meanwhile
            }
            nextCheck = now + everyNanos;
            Object seen = stamp(file);
            if (seen.equals(stamp)) {
                return;
            }
            stamp = seen;
            try {
                entries = List.copyOf(read(file));
                log.println(Instant.now() + " the users file " + file + " changed: " + entries.size() + " users");
            } catch (ExitCodes.UsageException e) {
                log.println(Instant.now() + " WARN " + LogText.escape(e.getMessage()) + "; the " + entries.size()
                        + " users read before stay in force until the file is fixed");
            }
        }

        /** What tells one version of the file from another without reading it. */
        static Object stamp(Path file) {
            try {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                return List.of(attributes.lastModifiedTime(), attributes.size(),
                        String.valueOf(attributes.fileKey()));
            } catch (IOException e) {
                return "unreadable: " + e; // missing or unreadable: read() says which, once
            }
        }
    }

    private static Entry user(String name, JsonNode node, List<String> broken) {
        String at = "users." + name;
        int before = broken.size();
        if (!NAME.matcher(name).matches()) {
            broken.add("a user name must be 1 to 64 letters, digits or ._@- (starting with a letter or digit),"
                    + " but was " + Validation.show(name));
        }
        if (node == null || !node.isObject()) {
            broken.add(at + " must be a map with token and roles, but was " + node);
            return null;
        }
        node.fieldNames().forEachRemaining(field -> {
            if (!USER_FIELDS.contains(field)) {
                broken.add(at + "." + field + " is not a field of a user (token, roles)");
            }
        });
        JsonNode token = node.get("token");
        byte[] digest = null;
        if (token == null || !token.isTextual()) {
            broken.add(at + ".token must be the user's token or sha256:<its SHA-256 in hex>, but was absent");
        } else if (token.asText().startsWith("sha256:")) {
            if (DIGEST.matcher(token.asText()).matches()) {
                digest = HexFormat.of().parseHex(token.asText().substring("sha256:".length()));
            } else {
                broken.add(at + ".token must be sha256: and 64 hex digits, but was not"); // never show a token
            }
        } else if (token.asText().strip().length() < MIN_TOKEN_LENGTH) {
            broken.add(at + ".token must be at least " + MIN_TOKEN_LENGTH + " characters long, but was "
                    + token.asText().strip().length() + " characters long");
        } else {
            digest = digest(token.asText().strip());
        }
        Map<String, Role> roles = new LinkedHashMap<>();
        JsonNode given = node.get("roles");
        if (given == null || !given.isObject() || given.isEmpty()) {
            broken.add(at + ".roles must map namespaces (or \"*\") to read, write or admin, but was "
                    + (given == null ? "absent" : given));
        } else {
            given.properties().forEach(role -> {
                try {
                    roles.put(role.getKey(), Role.valueOf(role.getValue().asText().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    broken.add(at + ".roles." + role.getKey() + " must be read, write or admin, but was "
                            + Validation.show(role.getValue().asText()));
                }
            });
        }
        return broken.size() == before ? new Entry(new User(name, roles), digest) : null;
    }

    /**
     * The user a request's token names, or null. Every user's digest is compared, in constant time: neither which
     * user nor how much of a token a guess got right shows in the answer's timing.
     */
    User authenticate(String token) {
        if (token == null || token.isEmpty()) {
            return null;
        }
        byte[] given = digest(token);
        User found = null;
        for (Entry entry : current()) {
            if (MessageDigest.isEqual(given, entry.digest()) && found == null) {
                found = entry.user();
            }
        }
        return found;
    }

    int size() {
        return current().size();
    }

    private List<Entry> current() {
        return reload == null ? fixed : reload.current();
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible); // every JDK has SHA-256
        }
    }

    @Override
    public String toString() {
        return "Users" + current(); // names and roles, never a token or digest
    }
}
