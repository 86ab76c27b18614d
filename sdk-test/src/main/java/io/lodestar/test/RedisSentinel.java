package io.lodestar.test;

/**
 * A real Redis Sentinel deployment for tests: one master without replicas and one {@code redis-sentinel} process
 * that monitors it under the name {@value #MASTER_NAME} (quorum 1, {@code down-after-milliseconds} 1000).
 *
 * <p>Get one from {@link TestRedis#startSentinel()}; the caller closes it. Clients connect through
 * {@link #uri()}: they ask the sentinel where the master is, and ask again when they reconnect. With no replica
 * to promote, a killed master stays the master: Sentinel tries to fail over, gives up, and reports the same
 * address again once the master is {@linkplain RedisServer#restart() restarted} (empty, as after any crash).
 *
 * <pre>{@code
 * try (RedisSentinel sentinel = TestRedis.startSentinel()) {
 *     connect(sentinel.uri());          // redis-sentinel://127.0.0.1:PORT#lodestar
 *     sentinel.master().kill();         // crash the master
 *     sentinel.master().restart();      // same port, empty; returns once the sentinel sees it up
 * }
 * }</pre>
 *
 * <p>The sentinel keeps two connections to the master (commands and its {@code __sentinel__:hello} PubSub
 * channel): they show up in {@code CLIENT LIST} and are counted by
 * {@link RedisServer#disconnectClients(String)}.
 */
public interface RedisSentinel extends AutoCloseable {

    /** The name the sentinel knows the master by: the fragment of {@link #uri()}. */
    String MASTER_NAME = "lodestar";

    /**
     * The URI clients connect to, in the form Lettuce (and so the SDK) reads.
     *
     * @return {@code redis-sentinel://127.0.0.1:PORT#lodestar}, PORT being the sentinel's
     */
    String uri();

    /**
     * The host the sentinel listens on.
     *
     * @return {@code 127.0.0.1}
     */
    String host();

    /**
     * The sentinel's port (not the master's: that is {@code master().port()}).
     *
     * @return the TCP port, never 6379 or 26379
     */
    int port();

    /**
     * The master the sentinel monitors. Its {@code close()} does nothing (close the sentinel instead); its
     * {@code kill()} crashes it; its {@code restart()} starts it again on the same port and returns once the
     * sentinel reports it up (not down, connected) again.
     *
     * @return the master, on its own free port
     */
    RedisServer master();

    /**
     * The version of both processes (they run the same {@code redis-server} binary).
     *
     * @return for example {@code 7.0.15}
     */
    String version();

    /**
     * Stops the sentinel and the master and deletes their private directories. Idempotent.
     */
    @Override
    void close();
}
