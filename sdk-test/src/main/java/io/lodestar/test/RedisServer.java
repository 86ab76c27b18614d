package io.lodestar.test;

/**
 * One real standalone Redis server for tests.
 *
 * <p>Get the shared one from {@link TestRedis#standalone()} (or as a {@code RedisServer} parameter with
 * {@link RedisExtension}), or a private one for fault injection from {@link TestRedis#startStandalone()}.
 * A server started by the kit is <em>managed</em>: {@link #kill()} and {@link #restart()} work on its process.
 * A server given by {@code LODESTAR_TEST_REDIS_URI} (or one in a Docker container) is not.
 */
public interface RedisServer extends AutoCloseable {

    /**
     * The URI clients connect to.
     *
     * @return {@code redis://127.0.0.1:PORT} for a managed server; for an external server, the URI given in
     *     {@code LODESTAR_TEST_REDIS_URI}
     */
    String uri();

    /**
     * The host clients connect to.
     *
     * @return {@code 127.0.0.1} for a managed server
     */
    String host();

    /**
     * The port clients connect to; stays the same across {@link #restart()}.
     *
     * @return the TCP port
     */
    int port();

    /**
     * The server's version, as {@code INFO server} reports it.
     *
     * @return for example {@code 7.0.15}
     */
    String version();

    /**
     * Whether the kit owns this server's process, so that {@link #kill()} and {@link #restart()} work.
     *
     * @return {@code false} for a server given by {@code LODESTAR_TEST_REDIS_URI} or run by Testcontainers
     */
    boolean isManaged();

    /**
     * Kills the process with SIGKILL, as a crash would: its data is gone and its port is closed when this
     * returns. Does nothing if it is not running.
     *
     * @throws UnsupportedOperationException if this server is not {@linkplain #isManaged() managed}
     * @throws IllegalStateException if the server was closed, or the process does not die within 10 s
     */
    void kill();

    /**
     * Starts the server again on the same port (killing it first if it runs), and returns once it answers
     * {@code PING}.
     *
     * @throws UnsupportedOperationException if this server is not {@linkplain #isManaged() managed}
     * @throws IllegalStateException if the server was closed, the port has been taken by another process, or
     *     the server does not answer within 10 s
     */
    void restart();

    /**
     * Stops the process with SIGSTOP, as a stuck fork or a VM pause would: every connection stays open and nothing
     * is answered (the kernel still accepts connections and acknowledges packets, so clients see no error, only
     * silence). {@link #thaw()} resumes it; {@link #kill()}, {@link #restart()} and {@link #close()} work on a frozen
     * server too. Call {@code thaw()} in a {@code finally} block or an after-hook, so no test leaves it frozen.
     *
     * @throws UnsupportedOperationException if this server is not {@linkplain #isManaged() managed}
     * @throws IllegalStateException if the server is not running or the signal cannot be sent
     */
    default void freeze() {
        throw new UnsupportedOperationException("freeze() needs a managed server: " + uri() + " is not");
    }

    /**
     * Resumes a {@linkplain #freeze() frozen} process with SIGCONT; does nothing when it is not frozen.
     *
     * @throws UnsupportedOperationException if this server is not {@linkplain #isManaged() managed}
     * @throws IllegalStateException if the signal cannot be sent
     */
    default void thaw() {
        throw new UnsupportedOperationException("thaw() needs a managed server: " + uri() + " is not");
    }

    /**
     * Disconnects the clients of one type, as {@code CLIENT KILL TYPE <type>} does; the kit's own control
     * connection is skipped. Works on external servers too.
     *
     * @param type {@code normal}, {@code pubsub}, {@code replica} or {@code master}
     * @return how many clients were disconnected
     * @throws IllegalArgumentException if Redis rejects the type
     * @throws IllegalStateException if the server cannot be reached
     */
    long disconnectClients(String type);

    /**
     * Stops the server and deletes its private data directory. Idempotent. A no-op on the shared server,
     * which is stopped when the JVM exits.
     */
    @Override
    void close();
}
