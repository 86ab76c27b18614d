package io.lodestar.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A master and one sentinel, both {@link ManagedRedisServer}s (so each has its watchdog and private directory;
 * the sentinel's config file lives in its directory, where Sentinel rewrites it).
 */
final class LocalRedisSentinel implements RedisSentinel {

    static final Duration MONITOR_TIMEOUT = Duration.ofSeconds(10);
    /** Small, so a killed master is seen down (and a restarted one up) within about a second. */
    static final int DOWN_AFTER_MILLIS = 1000;
    private static final Duration POLL = Duration.ofMillis(20);

    private final String name;
    private final ManagedRedisServer master;
    private final ManagedRedisServer sentinel;
    private final RedisServer masterView;
    private boolean closed;

    private LocalRedisSentinel(String name, ManagedRedisServer master, ManagedRedisServer sentinel) {
        this.name = name;
        this.master = master;
        this.sentinel = sentinel;
        this.masterView = new MasterView();
    }

    /**
     * Starts the master, then the sentinel monitoring it, and waits until the sentinel reports the master up.
     *
     * @throws IllegalStateException if a process does not start within 10 s, or the sentinel does not report the
     *     master within 10 s
     */
    static LocalRedisSentinel start(RedisSource.Binary binary, String name) {
        ManagedRedisServer master = ManagedRedisServer.start(binary, name + " master", List.of(), false);
        ManagedRedisServer sentinel = null;
        try {
            sentinel = ManagedRedisServer.start(binary, name + " sentinel",
                    ManagedRedisServer.Setup.sentinel(config(master.port())));
            LocalRedisSentinel started = new LocalRedisSentinel(name, master, sentinel);
            started.awaitMasterUp("starting");
            return started;
        } catch (RuntimeException e) {
            if (sentinel != null) {
                closeQuietly(sentinel, e);
            }
            closeQuietly(master, e);
            throw e;
        }
    }

    /** The sentinel's initial config file. Failover timeout is short too: with no replica, every attempt aborts. */
    static String config(int masterPort) {
        return String.join("\n",
                "sentinel monitor " + MASTER_NAME + " " + ManagedRedisServer.HOST + " " + masterPort + " 1",
                "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
                "sentinel failover-timeout " + MASTER_NAME + " 2000",
                "");
    }

    private static void closeQuietly(ManagedRedisServer server, RuntimeException failure) {
        try {
            server.close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Waits until {@code SENTINEL GET-MASTER-ADDR-BY-NAME} names our master and {@code SENTINEL MASTER} flags it
     * plainly {@code master}: connected, neither subjectively nor objectively down.
     */
    private void awaitMasterUp(String phase) {
        long deadline = System.nanoTime() + MONITOR_TIMEOUT.toNanos();
        String problem = masterProblem();
        while (problem != null) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException(name + ": the sentinel on " + ManagedRedisServer.HOST + ":"
                        + sentinel.port() + " does not report the master " + ManagedRedisServer.HOST + ":"
                        + master.port() + " up after " + phase + " within " + MONITOR_TIMEOUT.toSeconds() + " s ("
                        + problem + "). Sentinel log:\n" + sentinel.logTail());
            }
            ManagedRedisServer.sleep(POLL);
            problem = masterProblem();
        }
    }

    /** What keeps the master from being reported up, or {@code null} when it is. */
    private String masterProblem() {
        try (Resp resp = sentinel.control(ServerInfo.TIMEOUT)) {
            Object address = resp.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
            List<Object> expected = List.of(ManagedRedisServer.HOST, Integer.toString(master.port()));
            if (!expected.equals(address)) {
                return "GET-MASTER-ADDR-BY-NAME " + MASTER_NAME + " answered " + address + ", expected " + expected;
            }
            String flags = fields(resp.call("SENTINEL", "MASTER", MASTER_NAME)).get("flags");
            return "master".equals(flags) ? null : "the master's flags are '" + flags + "'";
        } catch (IOException e) {
            return "cannot ask the sentinel: " + e.getMessage();
        }
    }

    /** A flat {@code [field, value, …]} reply as a map. */
    private static Map<String, String> fields(Object reply) throws IOException {
        if (!(reply instanceof List<?> list)) {
            throw new IOException("expected a list of fields from SENTINEL MASTER, but was " + reply);
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < list.size(); i += 2) {
            fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
        }
        return fields;
    }

    private synchronized void ensureOpen(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + " on a closed " + name);
        }
    }

    @Override
    public String uri() {
        return "redis-sentinel://" + ManagedRedisServer.HOST + ":" + sentinel.port() + "#" + MASTER_NAME;
    }

    @Override
    public String host() {
        return ManagedRedisServer.HOST;
    }

    @Override
    public int port() {
        return sentinel.port();
    }

    @Override
    public RedisServer master() {
        return masterView;
    }

    @Override
    public String version() {
        return sentinel.version();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        ManagedRedisServer.closeAll(List.of(sentinel, master));
    }

    /** Both processes, sentinel first, for tests of the kit. */
    List<ManagedRedisServer> servers() {
        return new ArrayList<>(List.of(sentinel, master));
    }

    @Override
    public String toString() {
        return name + " " + uri() + " (master " + master.uri() + ")";
    }

    /** The master as a {@link RedisServer}: restart waits for the sentinel; close is the deployment's job. */
    private final class MasterView extends ForwardingRedisServer {

        MasterView() {
            super(master);
        }

        @Override
        public void kill() {
            ensureOpen("kill() of the master");
            master.kill();
        }

        @Override
        public void restart() {
            ensureOpen("restart() of the master");
            master.restart();
            awaitMasterUp("restarting the master");
        }

        @Override
        public void close() {
            // The deployment owns its master.
        }

        @Override
        public String toString() {
            return "master of " + LocalRedisSentinel.this;
        }
    }
}
