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

/**
 * A {@code redis-server} process the kit started: loopback only, on a port picked in Java, with a private data
 * directory, no persistence, and its log in that directory.
 *
 * <p>On POSIX systems the process is launched as {@code /bin/sh -c <watchdog> … exec redis-server …}: the shell
 * forks a tiny watchdog loop and then {@code exec}s Redis, so the {@link Process} <em>is</em> Redis (same pid;
 * {@code destroy()} signals Redis itself) while the watchdog SIGKILLs Redis once the JVM's pid is gone. That
 * covers a SIGKILLed JVM, where the shutdown hook in {@link Reaper} never runs.
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

    private final RedisSource.Binary binary;
    private final String name;
    private final List<String> extraArgs;
    private final boolean clusterBus;
    private final Path dir;
    private int port;
    private Process process;
    private String version;
    private boolean closed;
    private long stdoutSizeAtLaunch;
    private long logSizeAtLaunch;

    private ManagedRedisServer(RedisSource.Binary binary, String name, List<String> extraArgs, boolean clusterBus,
            Path dir) {
        this.binary = binary;
        this.name = name;
        this.extraArgs = List.copyOf(extraArgs);
        this.clusterBus = clusterBus;
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
        Path dir;
        try {
            dir = Files.createTempDirectory("lodestar-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a data directory for " + name, e);
        }
        ManagedRedisServer server = new ManagedRedisServer(binary, name, extraArgs, clusterBus, dir);
        Reaper.closeAtExit(server);
        try {
            server.startOnFreePort();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private synchronized void startOnFreePort() {
        List<Integer> taken = new ArrayList<>();
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            port = Ports.reserve(clusterBus);
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
        List<String> command = command(binary.path(), port, dir, extraArgs, ProcessHandle.current().pid());
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
     * one. Package-private so the watchdog can be tested with a pid other than the JVM's.
     */
    static List<String> command(Path binary, int port, Path dir, List<String> extraArgs, long watchedPid) {
        List<String> command = new ArrayList<>();
        boolean posix = !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
        if (posix && Files.isExecutable(SHELL)) {
            command.addAll(List.of(SHELL.toString(), "-c", WATCHDOG, "lodestar-redis-watchdog",
                    Long.toString(watchedPid), dir.toString()));
        }
        command.add(binary.toString());
        command.addAll(List.of(
                "--port", Integer.toString(port),
                "--bind", HOST,
                "--protected-mode", "no",
                "--daemonize", "no",
                "--save", "",
                "--appendonly", "no",
                "--dir", dir.toString(),
                "--logfile", dir.resolve(LOG_FILE).toString(),
                // Lets tests use DEBUG SLEEP and the like from loopback clients.
                "--enable-debug-command", "local"));
        command.addAll(extraArgs);
        return command;
    }

    private Outcome awaitReady(Duration bound, long deadline) {
        Process launched = process;
        String lastError = "no connection attempt yet";
        while (true) {
            // Liveness first, also after the deadline: a bind failure is a clearer answer than a timeout.
            if (!launched.isAlive()) {
                if (logSinceLaunch().contains("Address already in use")) {
                    return Outcome.PORT_TAKEN;
                }
                throw new IllegalStateException(name + " (" + binary.path() + ") exited with code "
                        + launched.exitValue() + " before answering PING on " + HOST + ":" + port + ". Log:\n"
                        + logTail());
            }
            if (System.nanoTime() - deadline >= 0) {
                break;
            }
            try (Resp resp = Resp.connect(HOST, port, CONNECT_TIMEOUT)) {
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

    private String logTail() {
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

    @Override
    public String uri() {
        return "redis://" + HOST + ":" + port();
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
    public long disconnectClients(String type) {
        return ServerInfo.clientKill(RedisEndpoint.plain(HOST, port()), type);
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

    @Override
    public synchronized String toString() {
        return name + ": redis-server " + version + " on " + HOST + ":" + port
                + (process == null ? " (not running)" : " (pid " + process.pid() + ")") + ", dir " + dir
                + File.separator;
    }
}
