package io.lodestar.test;

/**
 * A running server named by {@code LODESTAR_TEST_REDIS_URI}: the kit does not own its process, so it cannot
 * kill or restart it, and never stops it.
 */
final class ExternalRedisServer implements RedisServer {

    private final RedisEndpoint endpoint;
    private final String version;

    private ExternalRedisServer(RedisEndpoint endpoint, String version) {
        this.endpoint = endpoint;
        this.version = version;
    }

    /**
     * Connects once to read and check the version.
     *
     * @throws IllegalStateException if the server cannot be reached or is older than Redis 7.0
     */
    static ExternalRedisServer connect(RedisEndpoint endpoint) {
        return new ExternalRedisServer(endpoint,
                ServerInfo.version(endpoint, "the server named by " + SourceResolver.URI_SETTING));
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
    public boolean isManaged() {
        return false;
    }

    @Override
    public void kill() {
        throw unsupported("kill()");
    }

    @Override
    public void restart() {
        throw unsupported("restart()");
    }

    private UnsupportedOperationException unsupported(String operation) {
        return new UnsupportedOperationException(operation + " is not supported on the external Redis "
                + endpoint.redacted() + " named by " + SourceResolver.URI_SETTING
                + ": the test kit does not own its process. Use TestRedis.startStandalone() (or a @Private"
                + " RedisServer parameter) for fault-injection tests.");
    }

    @Override
    public long disconnectClients(String type) {
        return ServerInfo.clientKill(endpoint, type);
    }

    @Override
    public void close() {
        // Not ours to stop.
    }

    @Override
    public String toString() {
        return "external Redis " + version + " at " + endpoint.redacted();
    }
}
