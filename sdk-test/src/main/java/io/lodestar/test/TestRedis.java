package io.lodestar.test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands tests a real Redis server or cluster, never a mock.
 *
 * <p>A server is found in this order:
 * <ol>
 *   <li>{@code LODESTAR_TEST_REDIS_URI} (system property or environment variable), for the shared standalone
 *       server only;</li>
 *   <li>the {@code redis-server} named by {@code LODESTAR_TEST_REDIS_BINARY}, else the one on {@code PATH};</li>
 *   <li>the {@code redis-server} shipped in the {@code org.signal:embedded-redis} jar (Linux, macOS);</li>
 *   <li>Testcontainers ({@code redis:7.4}) when Docker is available (standalone only);</li>
 *   <li>else an {@link IllegalStateException} whose message says what to install.</li>
 * </ol>
 * Redis 7.0 or newer is required. Servers started by the kit listen on 127.0.0.1 on a free port (never 6379),
 * keep data in a private temporary directory and persist nothing; they are stopped, and their directories
 * deleted, on {@code close()} or at the latest when the JVM exits (even a SIGKILLed one, on POSIX systems).
 *
 * <pre>{@code
 * try (RedisServer redis = TestRedis.startStandalone()) {
 *     redis.kill();     // crash it
 *     redis.restart();  // same port, empty
 * }
 * }</pre>
 *
 * <p>Besides standalone servers and clusters, the kit starts the other deployments a URI can name: a Sentinel
 * ({@link #startSentinel()}, for {@code redis-sentinel://}) and a TLS-only server ({@link #startTls()}, for
 * {@code rediss://}). Like clusters, they need a {@code redis-server} binary (steps 2 and 3).
 *
 * <p>In JUnit tests, {@link RedisExtension} injects these as parameters.
 */
public final class TestRedis {

    private static final Object STANDALONE_LOCK = new Object();
    private static final Object CLUSTER_LOCK = new Object();
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    private static RedisServer standalone;
    private static RedisSource standaloneSource;
    private static RuntimeException standaloneFailure;
    private static RedisCluster cluster;
    private static RuntimeException clusterFailure;

    private TestRedis() {
    }

    /**
     * The standalone server shared by all tests in this JVM, started on first use. Its {@code close()} does
     * nothing; it stops when the JVM exits. Tests sharing it must use their own key namespace and must not
     * kill it: use {@link #startStandalone()} for fault injection.
     *
     * @return the shared server; not {@linkplain RedisServer#isManaged() managed} when it comes from
     *     {@code LODESTAR_TEST_REDIS_URI}
     * @throws IllegalStateException if no Redis 7.0+ can be found or started (the message says what to install),
     *     also on every later call once the first attempt failed
     * @throws IllegalArgumentException if {@code LODESTAR_TEST_REDIS_URI} is not a {@code redis://} URI
     */
    public static RedisServer standalone() {
        synchronized (STANDALONE_LOCK) {
            if (standalone != null) {
                return standalone;
            }
            if (standaloneFailure != null) {
                throw new IllegalStateException("The shared Redis failed to start earlier in this JVM: "
                        + standaloneFailure.getMessage(), standaloneFailure);
            }
            try {
                RedisSource source = SourceResolver.system().resolve(SourceResolver.Purpose.SHARED_STANDALONE);
                standalone = SharedServers.unclosable(start(source, "shared Redis"));
                standaloneSource = source;
                return standalone;
            } catch (RuntimeException e) {
                standaloneFailure = e;
                throw e;
            }
        }
    }

    /**
     * Starts a private server for one test, for fault injection: the caller closes it. It is always a server
     * the kit starts itself ({@code LODESTAR_TEST_REDIS_URI} is ignored), so it is
     * {@linkplain RedisServer#isManaged() managed} unless only Docker was found.
     *
     * @return a new running server
     * @throws IllegalStateException if no Redis 7.0+ can be found or started (the message says what to install)
     */
    public static RedisServer startStandalone() {
        return start(SourceResolver.system().resolve(SourceResolver.Purpose.PRIVATE_STANDALONE), "private Redis");
    }

    /**
     * The three-master cluster shared by all tests in this JVM, started on first use. Its {@code close()} does
     * nothing; it stops when the JVM exits. Use {@link #startCluster()} for fault injection.
     *
     * @return the shared cluster
     * @throws IllegalStateException if no {@code redis-server} 7.0+ binary can be found (Docker is not used for
     *     clusters), or the cluster is not healthy within 30 s; also on every later call once the first attempt
     *     failed
     */
    public static RedisCluster cluster() {
        synchronized (CLUSTER_LOCK) {
            if (cluster != null) {
                return cluster;
            }
            if (clusterFailure != null) {
                throw new IllegalStateException("The shared Redis Cluster failed to start earlier in this JVM: "
                        + clusterFailure.getMessage(), clusterFailure);
            }
            try {
                cluster = SharedServers.unclosable(startLocalCluster("shared Redis Cluster", false));
                return cluster;
            } catch (RuntimeException e) {
                clusterFailure = e;
                throw e;
            }
        }
    }

    /**
     * Starts a private three-master cluster for one test, for fault injection: the caller closes it.
     *
     * @return a new healthy cluster
     * @throws IllegalStateException if no {@code redis-server} 7.0+ binary can be found (Docker is not used for
     *     clusters), or the cluster is not healthy within 30 s
     */
    public static RedisCluster startCluster() {
        return startLocalCluster("private Redis Cluster", false);
    }

    /**
     * Starts a private cluster of three masters with one replica each, for failover tests: the caller closes it.
     * Slower to start than {@link #startCluster()} (six processes, replicas in sync), so only tests that fail
     * over or migrate ask for it.
     *
     * @return a new healthy cluster whose replicas are in sync
     * @throws IllegalStateException if no {@code redis-server} 7.0+ binary can be found (Docker is not used for
     *     clusters), or the cluster is not healthy within 30 s
     */
    public static RedisCluster startClusterWithReplicas() {
        return startLocalCluster("private Redis Cluster with replicas", true);
    }

    /**
     * Starts a private Sentinel deployment for one test: a master without replicas and one sentinel monitoring
     * it as {@value RedisSentinel#MASTER_NAME}, both on free ports. Returns once the sentinel reports the master
     * up. The caller closes it.
     *
     * @return a new running deployment; clients connect to its {@link RedisSentinel#uri()}
     * @throws IllegalStateException if no {@code redis-server} 7.0+ binary can be found (Docker is not used),
     *     a process does not start within 10 s, or the sentinel does not report the master within 10 s
     */
    public static RedisSentinel startSentinel() {
        RedisSource.Binary binary = localBinary(SourceResolver.Purpose.SENTINEL, "A Redis Sentinel");
        RedisSentinel started = LocalRedisSentinel.start(binary, "private Redis Sentinel");
        report(binary.describe());
        return started;
    }

    /**
     * Starts a private server that speaks TLS only, for one test: a throwaway CA and a server certificate for
     * 127.0.0.1 are made in memory first (see {@link TlsRedisServer} for how clients can trust them). Returns
     * once the server answers {@code PING} through TLS. The caller closes it.
     *
     * <p>A {@code redis-server} built without TLS (no {@code BUILD_TLS=yes}) cannot do this; then the test that
     * asked is aborted, as a failed assumption would abort it: JUnit reports it as skipped, with the reason.
     *
     * @return a new running server; clients connect to its {@link TlsRedisServer#uri()}
     * @throws org.opentest4j.TestAbortedException if the {@code redis-server} found was built without TLS
     * @throws IllegalStateException if no {@code redis-server} 7.0+ binary can be found (Docker is not used), or
     *     the server does not answer within 10 s
     */
    public static TlsRedisServer startTls() {
        RedisSource.Binary binary = localBinary(SourceResolver.Purpose.TLS, "A Redis server with TLS");
        TlsRedisServer started = LocalTlsRedisServer.start(binary, "private Redis with TLS");
        report(binary.describe());
        return started;
    }

    /**
     * Says where the shared standalone server comes (or would come) from, and, when that is
     * {@code LODESTAR_TEST_REDIS_URI}, where private servers and clusters come from. Starts nothing.
     *
     * @return for example {@code redis-server 7.0.15 from PATH (/usr/bin/redis-server)}
     * @throws IllegalStateException if no Redis 7.0+ can be found (the message says what to install)
     */
    public static String describeSource() {
        RedisSource source;
        String version = null;
        synchronized (STANDALONE_LOCK) {
            source = standaloneSource;
            if (source != null) {
                version = standalone.version();
            }
        }
        if (source == null) {
            source = SourceResolver.system().resolve(SourceResolver.Purpose.SHARED_STANDALONE);
        }
        if (!(source instanceof RedisSource.External)) {
            return source.describe();
        }
        String text = source.describe() + (version == null ? "" : ", Redis " + version);
        try {
            return text + "; private servers and clusters: "
                    + SourceResolver.system().resolve(SourceResolver.Purpose.PRIVATE_STANDALONE).describe();
        } catch (IllegalStateException e) {
            return text + "; private servers and clusters: none (no redis-server 7.0+ binary found)";
        }
    }

    private static RedisCluster startLocalCluster(String name, boolean replicas) {
        RedisSource.Binary binary = localBinary(SourceResolver.Purpose.CLUSTER, "A Redis Cluster");
        LocalRedisCluster started = LocalRedisCluster.start(binary, name, replicas);
        report(binary.describe());
        return started;
    }

    /** The binary for a deployment the kit runs as local processes. */
    private static RedisSource.Binary localBinary(SourceResolver.Purpose purpose, String what) {
        RedisSource source = SourceResolver.system().resolve(purpose);
        if (!(source instanceof RedisSource.Binary binary)) {
            throw new IllegalStateException(what + " needs a redis-server binary, but found only "
                    + source.describe());
        }
        return binary;
    }

    /** Starts (or connects to) a server from the source. Package-private so tests can pick the source. */
    static RedisServer start(RedisSource source, String name) {
        RedisServer server;
        if (source instanceof RedisSource.External external) {
            server = ExternalRedisServer.connect(external.endpoint());
            report(source.describe() + ", Redis " + server.version());
        } else if (source instanceof RedisSource.Binary binary) {
            server = ManagedRedisServer.start(binary, name, List.of(), false);
            report(source.describe());
        } else if (source instanceof RedisSource.Docker docker) {
            server = DockerSupport.start(docker.image());
            report(source.describe() + ", Redis " + server.version());
        } else {
            throw new IllegalStateException("Unknown Redis source " + source);
        }
        return server;
    }

    /** Tells once per JVM (on standard error) which Redis the tests use. */
    private static void report(String description) {
        if (REPORTED.add(description)) {
            System.err.println("[lodestar-test] Redis for tests: " + description);
        }
    }
}
