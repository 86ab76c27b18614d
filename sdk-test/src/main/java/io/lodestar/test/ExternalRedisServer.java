package io.lodestar.test;

/**
 * A running server named by {@code LODESTAR_TEST_REDIS_URI}: the kit does not own its process, so it cannot
 * kill or restart it, and never stops it.
 */
final class ExternalRedisServer extends UnmanagedRedisServer {

    private ExternalRedisServer(RedisEndpoint endpoint, String version) {
        super(endpoint, version);
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
    String unsupportedMessage(String operation) {
        return operation + " is not supported on the external Redis " + endpoint().redacted() + " named by "
                + SourceResolver.URI_SETTING + ": the test kit does not own its process. Use"
                + " TestRedis.startStandalone() (or a @Private RedisServer parameter) for fault-injection tests.";
    }

    @Override
    public void close() {
        // Not ours to stop.
    }

    @Override
    public String toString() {
        return "external Redis " + version() + " at " + endpoint().redacted();
    }
}
