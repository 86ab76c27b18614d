package io.lodestar.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocketFactory;
import org.opentest4j.TestAbortedException;

/**
 * A {@code redis-server} process the kit started: loopback only, on a port picked in Java, with a private data
 * directory, no persistence, and its log in that directory.
 *
 * <p>On POSIX systems the process is launched as {@code /bin/sh -c <watchdog> … exec redis-server …}: the shell
 * forks a tiny watchdog loop and then {@code exec}s Redis, so the {@link Process} <em>is</em> Redis (same pid;
 * {@code destroy()} signals Redis itself) while the watchdog SIGKILLs Redis once the JVM's pid is gone. That
 * covers a SIGKILLed JVM, where the shutdown hook in {@link Reaper} never runs.
 *
 * <p>A {@link Setup} makes it a cluster node, a Sentinel (with its config file in the private directory, where
 * Sentinel can rewrite it) or a TLS-only server (certificates in the private directory too, so the watchdog's
 * clean-up takes the private key along).
 */
final class ManagedRedisServer implements RedisServer {

    static final String HOST = "127.0.0.1";
    static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final int START_ATTEMPTS = 5;
    private static final Duration POLL = Duration.ofMillis(10);
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);
    private static final Path SHELL = Path.of("/bin/sh");
    private static final String LOG_FILE = "redis.log";
    private static final String STDOUT_FILE = "stdout.log";
    private static final String SENTINEL_CONFIG_FILE = "sentinel.conf";
    private static final String TLS_DIR = "tls";

    /**
     * Runs as {@code sh -c WATCHDOG name jvmPid dataDir redis-server args…}. {@code $$} is the shell's pid, which
     * Redis keeps after {@code exec}. Once a second the loop checks the JVM: when it is gone, the loop SIGKILLs
     * Redis and deletes the data directory; when Redis exits first, the loop just ends.
     */
    static final String WATCHDOG = String.join("\n",
            "jvm=$1; dir=$2; shift 2",
            "( while kill -0 $$ 2>/dev/null; do",
            "    if ! kill -0 \"$jvm\" 2>/dev/null; then kill -9 $$ 2>/dev/null; rm -rf \"$dir\"; exit 0; fi",
            "    sleep 1",
            "  done ) </dev/null >/dev/null 2>&1 &",
            "exec \"$@\"");

    private enum Outcome { READY, PORT_TAKEN }

    /**
     * What sets a server apart from a plain one.
     *
     * @param extraArgs more {@code redis-server} arguments (cluster settings)
     * @param clusterBus whether port + 10000 must be free too
     * @param sentinelConfig for a Sentinel: the initial contents of its config file; else {@code null}
     * @param tls for a TLS-only server: its certificates; else {@code null}
     */
    record Setup(List<String> extraArgs, boolean clusterBus, String sentinelConfig, TlsCertificates tls) {

        Setup {
            extraArgs = List.copyOf(extraArgs);
        }

        static Setup plain(List<String> extraArgs, boolean clusterBus) {
            return new Setup(extraArgs, clusterBus, null, null);
        }

        static Setup sentinel(String config) {
            return new Setup(List.of(), false, config, null);
        }

        static Setup tls(TlsCertificates certificates) {
            return new Setup(List.of(), false, null, certificates);
        }
    }

    private final RedisSource.Binary binary;
    private final String name;
    private final Setup setup;
    private final SSLSocketFactory controlTls;
    private final Path dir;
    private int port;
    private Process process;
    /** Stopped by {@link #freeze()} and not resumed yet. */
    private boolean frozen;
    private String version;
    private boolean closed;
    private long stdoutSizeAtLaunch;
    private long logSizeAtLaunch;

    private ManagedRedisServer(RedisSource.Binary binary, String name, Setup setup, Path dir) {
        this.binary = binary;
        this.name = name;
        this.setup = setup;
        this.controlTls = setup.tls() == null ? null : setup.tls().socketFactory();
        this.dir = dir;
    }

    /**
     * Starts a server on a free port (retrying on a bind race) and returns once it answers {@code PING}.
     *
     * @param name for messages, e.g. {@code "private Redis"}
     * @param extraArgs more {@code redis-server} arguments (cluster settings)
     * @param clusterBus whether port + 10000 must be free too
     * @throws IllegalStateException if it does not start within 10 s (the message holds the log tail)
     */
    static ManagedRedisServer start(RedisSource.Binary binary, String name, List<String> extraArgs,
            boolean clusterBus) {
        return start(binary, name, Setup.plain(extraArgs, clusterBus));
    }

    /**
     * Starts a server as the setup says, on a free port (retrying on a bind race), and returns once it answers
     * {@code PING} (through TLS for a TLS setup).
     *
     * @param name for messages, e.g. {@code "private Redis"}
     * @throws IllegalStateException if it does not start within 10 s (the message holds the log tail)
     * @throws org.opentest4j.TestAbortedException if a TLS setup meets a {@code redis-server} built without TLS
     */
    static ManagedRedisServer start(RedisSource.Binary binary, String name, Setup setup) {
        Path dir;
        try {
            dir = Files.createTempDirectory("lodestar-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a data directory for " + name, e);
        }
        ManagedRedisServer server;
        try {
            server = new ManagedRedisServer(binary, name, setup, dir);
        } catch (RuntimeException e) {
            Reaper.deleteRecursively(dir);
            throw e;
        }
        Reaper.closeAtExit(server);
        try {
            server.prepareFiles();
            server.startOnFreePort();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Writes what the setup needs into the private directory: Sentinel's config file, the TLS files. */
    private void prepareFiles() {
        try {
            if (setup.sentinelConfig() != null) {
                Files.writeString(dir.resolve(SENTINEL_CONFIG_FILE), setup.sentinelConfig(), StandardCharsets.UTF_8);
            }
            if (setup.tls() != null) {
                setup.tls().writeTo(Files.createDirectory(dir.resolve(TLS_DIR)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the files of " + name + " to " + dir, e);
        }
    }

    private synchronized void startOnFreePort() {
        List<Integer> taken = new ArrayList<>();
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            port = Ports.reserve(setup.clusterBus());
            if (launchAndAwait(START_TIMEOUT, System.nanoTime() + START_TIMEOUT.toNanos()) == Outcome.READY) {
                return;
            }
            taken.add(port);
            Ports.release(port);
        }
        throw new IllegalStateException("Cannot start " + name + ": ports " + taken
                + " were taken by other processes before redis-server could bind them");
    }

    /** Launches the process on {@link #port} and waits until it answers or fails. */
    private Outcome launchAndAwait(Duration bound, long deadline) {
        launch();
        Outcome outcome = awaitReady(bound, deadline);
        if (outcome != Outcome.READY) {
            stopProcess();
        }
        return outcome;
    }

    private void launch() {
        stdoutSizeAtLaunch = logSize(dir.resolve(STDOUT_FILE));
        logSizeAtLaunch = logSize(logFile());
        List<String> command = command(binary.path(), port, dir, setup, ProcessHandle.current().pid());
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(STDOUT_FILE).toFile()));
        try {
            process = builder.start();
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot launch " + binary.path() + " for " + name + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * The command line: {@code redis-server} with the kit's settings, behind the watchdog shell where there is
     * one; for a TLS setup {@code port} is the TLS port (the plain one is off). Package-private so the watchdog
     * can be tested with a pid other than the JVM's.
     */
    static List<String> command(Path binary, int port, Path dir, Setup setup, long watchedPid) {
        List<String> command = new ArrayList<>();
        boolean posix = !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
        if (posix && Files.isExecutable(SHELL)) {
            command.addAll(List.of(SHELL.toString(), "-c", WATCHDOG, "lodestar-redis-watchdog",
                    Long.toString(watchedPid), dir.toString()));
        }
        command.add(binary.toString());
        if (setup.sentinelConfig() != null) {
            // The config file must come first; Sentinel rewrites it (its state: epochs, known peers).
            command.addAll(List.of(dir.resolve(SENTINEL_CONFIG_FILE).toString(), "--sentinel"));
        }
        if (setup.tls() != null) {
            Path tls = dir.resolve(TLS_DIR);
            command.addAll(List.of(
                    "--port", "0", // 0 turns the plain port off: this server speaks TLS only
                    "--tls-port", Integer.toString(port),
                    "--tls-cert-file", tls.resolve(TlsCertificates.CERT_FILE).toString(),
                    "--tls-key-file", tls.resolve(TlsCertificates.KEY_FILE).toString(),
                    "--tls-ca-cert-file", tls.resolve(TlsCertificates.CA_FILE).toString(),
                    "--tls-auth-clients", "no"));
        } else {
            command.addAll(List.of("--port", Integer.toString(port)));
        }
        command.addAll(List.of(
                "--bind", HOST,
                "--protected-mode", "no",
                "--daemonize", "no",
                "--save", "",
                "--appendonly", "no",
                "--dir", dir.toString(),
                "--logfile", dir.resolve(LOG_FILE).toString(),
                // Lets tests use DEBUG SLEEP and the like from loopback clients.
                "--enable-debug-command", "local"));
        command.addAll(setup.extraArgs());
        return command;
    }

    private Outcome awaitReady(Duration bound, long deadline) {
        Process launched = process;
        String lastError = "no connection attempt yet";
        while (true) {
            // Liveness first, also after the deadline: a bind failure is a clearer answer than a timeout.
            if (!launched.isAlive()) {
                String log = logSinceLaunch();
                if (portTaken(log)) {
                    return Outcome.PORT_TAKEN;
                }
                if (setup.tls() != null && lacksTls(log)) {
                    throw new TestAbortedException(binary.describe() + " was built without TLS support, so "
                            + name + " cannot start. Use a redis-server built with BUILD_TLS=yes (Debian's and "
                            + "Homebrew's are), via PATH or " + SourceResolver.BINARY_SETTING + ". Log:\n"
                            + logTail());
                }
                throw new IllegalStateException(name + " (" + binary.path() + ") exited with code "
                        + launched.exitValue() + " before answering PING on " + HOST + ":" + port + ". Log:\n"
                        + logTail());
            }
            if (System.nanoTime() - deadline >= 0) {
                break;
            }
            try (Resp resp = Resp.connect(endpoint(), CONNECT_TIMEOUT, controlTls)) {
                if ("PONG".equals(resp.callString("PING"))) {
                    Map<String, String> info = ServerInfo.info(resp, "server");
                    if (!Long.toString(launched.pid()).equals(info.get("process_id"))) {
                        // Another server answers on "our" port: ours cannot have bound it.
                        return Outcome.PORT_TAKEN;
                    }
                    version = info.get("redis_version");
                    return Outcome.READY;
                }
            } catch (IOException e) {
                lastError = e.toString();
            }
            sleep(POLL);
        }
        stopProcess();
        throw new IllegalStateException(name + " did not answer PING on " + HOST + ":" + port + " within "
                + bound.toMillis() + " ms (last error: " + lastError + "). Log:\n" + logTail());
    }

    /**
     * Whether a start-up log says the port (or the cluster bus port) was taken: EADDRINUSE, which Redis logs in
     * its C library's words, "Address already in use" with glibc and the BSDs, "Address in use" with musl (the
     * static binaries shipped in embedded-redis). Matching only the first made every bind race of the embedded
     * binary look like a crash instead of a taken port.
     */
    static boolean portTaken(String log) {
        return log.contains("Address already in use") || log.contains("Address in use");
    }

    /**
     * Whether a start-up log says the binary has no TLS: Redis 7.0/7.2 built without it reject the
     * {@code tls-*} directives; 7.2+ with TLS as an unloaded module find no TLS connection type.
     */
    static boolean lacksTls(String log) {
        return log.contains("Bad directive") && log.contains(">>> 'tls-")
                || log.contains("connection listener of tls")
                || log.contains("TLS is not supported");
    }

    /**
     * Where the kit's control connections go: through TLS (trusting the setup's CA) for a TLS server. Takes the
     * lock only to read the port; callers connect outside it, so a slow server never blocks kill() or close().
     */
    private synchronized RedisEndpoint endpoint() {
        return setup.tls() == null ? RedisEndpoint.plain(HOST, port)
                : new RedisEndpoint("rediss://" + HOST + ":" + port, HOST, port, true, null, null, 0);
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for Redis", e);
        }
    }

    /** SIGKILLs the process and its children (the watchdog) and waits, bounded, until it is gone. */
    private void stopProcess() {
        Process running = process;
        if (running == null) {
            return;
        }
        List<ProcessHandle> children = running.descendants().toList();
        running.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        try {
            if (!running.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " (pid " + running.pid() + ") did not die within "
                        + STOP_TIMEOUT.toSeconds() + " s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while stopping " + name, e);
        }
        process = null;
        frozen = false; // SIGKILL ends a stopped process too
    }

    private Path logFile() {
        return dir.resolve(LOG_FILE);
    }

    /** What both logs gained since the last launch: a bind failure of an earlier attempt must not count. */
    private String logSinceLaunch() {
        return tailFrom(dir.resolve(STDOUT_FILE), stdoutSizeAtLaunch) + tailFrom(logFile(), logSizeAtLaunch);
    }

    private static String tailFrom(Path file, long offset) {
        try {
            byte[] bytes = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
            int from = (int) Math.min(bytes.length, offset);
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + file + ")";
        }
    }

    private static long logSize(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The last lines of stdout and the log, for failure messages. */
    String logTail() {
        StringBuilder tail = new StringBuilder();
        for (Path file : List.of(dir.resolve(STDOUT_FILE), logFile())) {
            try {
                if (Files.exists(file)) {
                    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                    lines.subList(Math.max(0, lines.size() - 20), lines.size())
                            .forEach(line -> tail.append("  ").append(line).append('\n'));
                }
            } catch (IOException | UncheckedIOException e) {
                tail.append("  (cannot read ").append(file).append(": ").append(e.getMessage()).append(")\n");
            }
        }
        return tail.length() == 0 ? "  (empty)" : tail.toString();
    }

    private void ensureOpen(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + " on a closed " + name + " (was " + HOST + ":" + port + ")");
        }
    }

    /**
     * {@code redis://127.0.0.1:PORT}; for a TLS server {@code rediss://127.0.0.1:PORT?verifyPeer=NONE}: encrypted,
     * but without checking the throwaway certificate, which no JVM trusts by default (see {@link TlsRedisServer}).
     */
    @Override
    public String uri() {
        return setup.tls() == null ? "redis://" + HOST + ":" + port() : "rediss://" + HOST + ":" + port()
                + "?verifyPeer=NONE";
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public synchronized int port() {
        return port;
    }

    @Override
    public synchronized String version() {
        return version;
    }

    @Override
    public boolean isManaged() {
        return true;
    }

    @Override
    public synchronized void kill() {
        ensureOpen("kill()");
        stopProcess();
    }

    @Override
    public void restart() {
        restart(START_TIMEOUT);
    }

    /** {@link #restart()} with another bound, so tests need not wait 10 s for a taken port. */
    synchronized void restart(Duration timeout) {
        ensureOpen("restart()");
        stopProcess();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (launchAndAwait(timeout, deadline) != Outcome.READY) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("Cannot restart " + name + ": port " + port
                        + " has been taken by another process (still taken after " + timeout.toMillis() + " ms)");
            }
            sleep(Duration.ofMillis(100));
        }
    }

    @Override
    public synchronized void freeze() {
        ensureOpen("freeze()");
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("Cannot freeze " + name + ": it is not running");
        }
        signal("-STOP", process.pid());
        frozen = true;
    }

    @Override
    public synchronized void thaw() {
        if (frozen && process != null && process.isAlive()) {
            signal("-CONT", process.pid());
        }
        frozen = false;
    }

    /** Sends a signal with the system's {@code kill}: the JDK can only terminate a process, not stop it. */
    private void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).redirectErrorStream(true).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill " + signal + " " + pid + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run kill " + signal + " " + pid + " (" + name + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending " + signal + " to " + name, e);
        }
    }

    @Override
    public long disconnectClients(String type) {
        return ServerInfo.clientKill(endpoint(), controlTls, type);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stopProcess();
        } finally {
            Ports.release(port);
            Reaper.forget(this);
            Reaper.deleteRecursively(dir);
        }
    }

    /**
     * Closes every server, also after one of them failed to close.
     *
     * @throws RuntimeException the first failure, with the later ones {@linkplain Throwable#addSuppressed suppressed}
     */
    static void closeAll(List<ManagedRedisServer> servers) {
        RuntimeException failure = null;
        for (ManagedRedisServer server : servers) {
            try {
                server.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Whether the process runs. */
    synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The process id, for tests; -1 when not running. */
    synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    /** The private data directory (deleted by {@link #close()}). */
    Path dataDir() {
        return dir;
    }

    RedisSource.Binary binary() {
        return binary;
    }

    /** The directory holding a TLS server's {@code ca.crt}, {@code server.crt} and {@code server.key}. */
    Path tlsDir() {
        return dir.resolve(TLS_DIR);
    }

    /**
     * Opens a control connection (through TLS for a TLS server), for the kit's own commands.
     *
     * @throws IOException if the server cannot be reached within {@code timeout}
     */
    Resp control(Duration timeout) throws IOException {
        return Resp.connect(endpoint(), timeout, controlTls);
    }

    @Override
    public synchronized String toString() {
        return name + ": redis-server " + version + " on " + HOST + ":" + port
                + (process == null ? " (not running)" : " (pid " + process.pid() + ")") + ", dir " + dir
                + File.separator;
    }
}
