package io.lodestar.test;

/**
 * A server the kit can reach but does not own (named by a URI, or in a container): it answers at a fixed
 * endpoint, is not {@linkplain #isManaged() managed}, and {@link #kill()} and {@link #restart()} throw an
 * {@link UnsupportedOperationException} whose message the subclass writes (why, and what to use instead).
 */
abstract class UnmanagedRedisServer implements RedisServer {

    private final RedisEndpoint endpoint;
    private final String version;

    UnmanagedRedisServer(RedisEndpoint endpoint, String version) {
        this.endpoint = endpoint;
        this.version = version;
    }

    /** Why {@code operation} (e.g. {@code "kill()"}) is not supported on this server, and what to use instead. */
    abstract String unsupportedMessage(String operation);

    RedisEndpoint endpoint() {
        return endpoint;
    }

    @Override
    public String uri() {
        return endpoint.uri();
    }

    @Override
    public String host() {
        return endpoint.host();
    }

    @Override
    public int port() {
        return endpoint.port();
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public final boolean isManaged() {
        return false;
    }

    @Override
    public final void kill() {
        throw new UnsupportedOperationException(unsupportedMessage("kill()"));
    }

    @Override
    public final void restart() {
        throw new UnsupportedOperationException(unsupportedMessage("restart()"));
    }

    @Override
    public long disconnectClients(String type) {
        return ServerInfo.clientKill(endpoint, type);
    }
}
