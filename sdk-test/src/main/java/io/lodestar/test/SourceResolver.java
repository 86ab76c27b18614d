package io.lodestar.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Finds a Redis server for tests, in the order the product requires:
 * <ol>
 *   <li>{@code LODESTAR_TEST_REDIS_URI} (shared standalone only);</li>
 *   <li>{@code LODESTAR_TEST_REDIS_BINARY}, else a {@code redis-server} on {@code PATH};</li>
 *   <li>the binary shipped in the {@code org.signal:embedded-redis} jar;</li>
 *   <li>Testcontainers, when Docker is available (not for a cluster);</li>
 *   <li>else an {@link IllegalStateException} that says what to install.</li>
 * </ol>
 * Candidates older than Redis 7.0 are skipped (with a note in the final message) unless the user forced them,
 * in which case the lookup fails at once.
 */
final class SourceResolver {

    /** Names a running server for the shared standalone (system property or environment variable). */
    static final String URI_SETTING = "LODESTAR_TEST_REDIS_URI";
    /** Forces the {@code redis-server} executable to start (system property or environment variable). */
    static final String BINARY_SETTING = "LODESTAR_TEST_REDIS_BINARY";
    /** The image used when only Docker is available. */
    static final String DOCKER_IMAGE = "redis:7.4";

    /** What the server is for: the steps that apply differ. */
    enum Purpose {
        /** {@link TestRedis#standalone()}: all five steps. */
        SHARED_STANDALONE("the shared Redis server"),
        /** {@link TestRedis#startStandalone()}: no external URI. */
        PRIVATE_STANDALONE("a private Redis server"),
        /** A cluster needs local processes: neither an external URI nor Docker. */
        CLUSTER("a local Redis Cluster", "a cluster (the kit runs cluster nodes as local processes)"),
        /** {@link TestRedis#startSentinel()}: local processes too. */
        SENTINEL("a local Redis Sentinel", "a Sentinel (the kit runs the master and the sentinel as local processes)"),
        /** {@link TestRedis#startTls()}: a local process, with certificates the kit makes. */
        TLS("a local Redis server with TLS",
                "a TLS server (the kit runs it as a local process, with certificates it makes)");

        private final String text;
        /** Why Testcontainers is not used, or {@code null} when it is. */
        private final String noDocker;

        Purpose(String text) {
            this(text, null);
        }

        Purpose(String text, String noDocker) {
            this.text = text;
            this.noDocker = noDocker;
        }
    }

    /** What the lookup reads from the machine; replaced in unit tests. */
    interface Environment {
        /** A setting from a system property, else from the environment; {@code null} if neither is set. */
        String setting(String name);

        /** The {@code PATH} entries, in order. */
        List<Path> path();

        /** Runs {@code <binary> --version}. */
        RedisVersion versionOf(Path binary) throws IOException;

        /** The embedded-redis binary for this platform, extracted; empty with a note if there is none. */
        Optional<Path> embeddedBinary(StringBuilder notes);

        /** Whether Testcontainers is present and finds Docker; appends a note when not. */
        boolean dockerAvailable(StringBuilder notes);

        /** Lower-case OS name, for the install hint. */
        String osName();
    }

    private final Environment env;

    SourceResolver(Environment env) {
        this.env = env;
    }

    /** A resolver that reads the real machine. */
    static SourceResolver system() {
        return new SourceResolver(SystemEnvironment.INSTANCE);
    }

    /**
     * Finds a source for the purpose.
     *
     * @throws IllegalStateException if nothing usable is found (the message says what to install), or a forced
     *     setting is unusable
     * @throws IllegalArgumentException if {@code LODESTAR_TEST_REDIS_URI} is not a Redis URI
     */
    RedisSource resolve(Purpose purpose) {
        List<String> tried = new ArrayList<>();

        // 1. An external server.
        String uri = env.setting(URI_SETTING);
        if (purpose == Purpose.SHARED_STANDALONE) {
            if (uri != null && !uri.isBlank()) {
                return new RedisSource.External(RedisEndpoint.parse(uri, URI_SETTING));
            }
            tried.add(URI_SETTING + ": not set");
        } else {
            tried.add(URI_SETTING + ": not used for " + purpose.text);
        }

        // 2. A forced binary, else redis-server on PATH.
        String forced = env.setting(BINARY_SETTING);
        if (forced != null && !forced.isBlank()) {
            return forcedBinary(Path.of(forced.trim()));
        }
        Optional<RedisSource.Binary> onPath = findOnPath(tried);
        if (onPath.isPresent()) {
            return onPath.get();
        }

        // 3. The binary inside the embedded-redis jar.
        StringBuilder notes = new StringBuilder();
        Optional<Path> embedded;
        try {
            embedded = env.embeddedBinary(notes);
        } catch (UncheckedIOException e) {
            embedded = Optional.empty();
            notes.append(e.getMessage()).append(": ").append(e.getCause().getMessage());
        }
        if (embedded.isPresent()) {
            Optional<RedisVersion> version = usableVersion(embedded.get(), notes);
            if (version.isPresent()) {
                return new RedisSource.Binary(embedded.get(), version.get(),
                        "from the org.signal:embedded-redis jar");
            }
        }
        tried.add("embedded-redis jar: " + notes);

        // 4. Testcontainers.
        if (purpose.noDocker != null) {
            tried.add("Testcontainers: not used for " + purpose.noDocker);
        } else {
            StringBuilder dockerNotes = new StringBuilder();
            if (env.dockerAvailable(dockerNotes)) {
                return new RedisSource.Docker(DOCKER_IMAGE);
            }
            tried.add("Testcontainers: " + dockerNotes);
        }

        // 5. Nothing: say what to do.
        throw new IllegalStateException(noRedisMessage(purpose, tried, env.osName()));
    }

    private RedisSource.Binary forcedBinary(Path binary) {
        if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
            throw new IllegalStateException(BINARY_SETTING + " must name an executable redis-server, but was '"
                    + binary + "' (" + (Files.exists(binary) ? "not executable" : "no such file") + ")");
        }
        RedisVersion version;
        try {
            version = env.versionOf(binary);
        } catch (IOException e) {
            throw new IllegalStateException(BINARY_SETTING + " names '" + binary
                    + "', but '" + binary + " --version' failed: " + e.getMessage(), e);
        }
        if (!version.isSupported()) {
            throw new IllegalStateException(BINARY_SETTING + " names redis-server " + version + " ('" + binary
                    + "'), but Lodestar needs Redis " + RedisVersion.FLOOR + " or newer (sharded PubSub)");
        }
        return new RedisSource.Binary(binary, version, "from " + BINARY_SETTING);
    }

    private Optional<RedisSource.Binary> findOnPath(List<String> tried) {
        List<String> skipped = new ArrayList<>();
        for (Path dir : env.path()) {
            Path candidate = dir.resolve("redis-server");
            if (!Files.isRegularFile(candidate) || !Files.isExecutable(candidate)) {
                continue;
            }
            StringBuilder notes = new StringBuilder();
            Optional<RedisVersion> version = usableVersion(candidate, notes);
            if (version.isPresent()) {
                return Optional.of(new RedisSource.Binary(candidate, version.get(), "from PATH"));
            }
            skipped.add(notes.toString());
        }
        tried.add("redis-server on PATH: " + (skipped.isEmpty() ? "not found" : String.join("; ", skipped)));
        return Optional.empty();
    }

    private Optional<RedisVersion> usableVersion(Path binary, StringBuilder notes) {
        try {
            RedisVersion version = env.versionOf(binary);
            if (version.isSupported()) {
                return Optional.of(version);
            }
            notes.append(binary).append(" is Redis ").append(version).append(", older than ")
                    .append(RedisVersion.FLOOR);
        } catch (IOException | RuntimeException e) {
            notes.append(binary).append(" --version failed: ").append(e.getMessage());
        }
        return Optional.empty();
    }

    /** The step-5 message: what was tried and what to install. Package-private so it can be unit-tested. */
    static String noRedisMessage(Purpose purpose, List<String> tried, String osName) {
        StringBuilder m = new StringBuilder();
        m.append("No Redis ").append(RedisVersion.FLOOR.major()).append(".").append(RedisVersion.FLOOR.minor())
                .append("+ found for ").append(purpose.text).append(". Tried, in order:\n");
        for (int i = 0; i < tried.size(); i++) {
            m.append("  ").append(i + 1).append(". ").append(tried.get(i)).append('\n');
        }
        m.append("Fix it with one of:\n");
        m.append("  - install Redis ").append(RedisVersion.FLOOR.major()).append(".0 or newer: ");
        if (osName.contains("mac") || osName.contains("darwin")) {
            m.append("brew install redis");
        } else if (osName.contains("win")) {
            m.append("use WSL and run sudo apt-get install redis-server there");
        } else {
            m.append("sudo apt-get install redis-server (Debian 12+/Ubuntu 24.04+; older releases ship Redis 6: "
                    + "use the packages.redis.io repository), or dnf install redis, or apk add redis");
        }
        m.append(", so that redis-server is on PATH (check: redis-server --version)\n");
        m.append("  - or point ").append(BINARY_SETTING).append(" at a redis-server executable "
                + "(-D").append(BINARY_SETTING).append("=/path/to/redis-server or an environment variable)\n");
        if (purpose == Purpose.SHARED_STANDALONE) {
            m.append("  - or use a running server: export ").append(URI_SETTING)
                    .append("=redis://host:port (not 6379 of a server you care about: tests write to it)\n");
        }
        if (purpose.noDocker == null) {
            m.append("  - or start Docker, with org.testcontainers:testcontainers on the test class path, so that "
                    + "Testcontainers can run ").append(DOCKER_IMAGE).append('\n');
        }
        m.append("  - or keep org.signal:embedded-redis on the test class path (it ships redis-server for "
                + "Linux and macOS on amd64/arm64)");
        return m.toString();
    }

    /** The real machine. */
    enum SystemEnvironment implements Environment {
        INSTANCE;

        private final Map<Path, RedisVersion> versions = new ConcurrentHashMap<>();

        @Override
        public String setting(String name) {
            String value = System.getProperty(name);
            return value != null ? value : System.getenv(name);
        }

        @Override
        public List<Path> path() {
            String path = System.getenv("PATH");
            List<Path> dirs = new ArrayList<>();
            if (path != null) {
                for (String entry : path.split(File.pathSeparator)) {
                    if (!entry.isBlank()) {
                        try {
                            dirs.add(Path.of(entry));
                        } catch (RuntimeException ignored) {
                            // An invalid PATH entry cannot hold redis-server.
                        }
                    }
                }
            }
            return dirs;
        }

        @Override
        public RedisVersion versionOf(Path binary) throws IOException {
            RedisVersion cached = versions.get(binary);
            if (cached != null) {
                return cached;
            }
            Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String output;
            try (InputStream in = process.getInputStream()) {
                process.getOutputStream().close();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new IOException("no answer in 10 s");
                }
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (process.exitValue() != 0) {
                throw new IOException("exit code " + process.exitValue() + ": " + output);
            }
            try {
                RedisVersion version = RedisVersion.parseServerBanner(output);
                versions.put(binary, version);
                return version;
            } catch (IllegalArgumentException e) {
                throw new IOException(e.getMessage(), e);
            }
        }

        @Override
        public Optional<Path> embeddedBinary(StringBuilder notes) {
            return EmbeddedBinary.extract(SourceResolver.class.getClassLoader(), notes);
        }

        @Override
        public boolean dockerAvailable(StringBuilder notes) {
            return DockerSupport.isAvailable(notes);
        }

        @Override
        public String osName() {
            return System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        }
    }
}
