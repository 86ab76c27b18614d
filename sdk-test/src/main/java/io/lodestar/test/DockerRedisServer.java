package io.lodestar.test;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis server in a Docker container run by Testcontainers (step 4, only when no binary is found).
 * Not managed: a container restart would get a new mapped port, so {@link #kill()} and {@link #restart()} are
 * unsupported. Only {@link DockerSupport} may load this class, after checking that Testcontainers is present.
 */
final class DockerRedisServer extends UnmanagedRedisServer {

    private final GenericContainer<?> container;
    private boolean closed;

    private DockerRedisServer(GenericContainer<?> container, RedisEndpoint endpoint, String version) {
        super(endpoint, version);
        this.container = container;
    }

    static boolean isDockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    /**
     * Starts a container of the image and checks its version.
     *
     * @throws IllegalStateException if it does not start or is older than Redis 7.0
     */
    static DockerRedisServer start(String image) {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                .withExposedPorts(RedisEndpoint.DEFAULT_PORT)
                .withCommand("redis-server", "--save", "", "--appendonly", "no", "--enable-debug-command", "yes");
        try {
            container.start();
            RedisEndpoint endpoint = RedisEndpoint.plain(container.getHost(),
                    container.getMappedPort(RedisEndpoint.DEFAULT_PORT));
            String version = ServerInfo.version(endpoint, image);
            DockerRedisServer server = new DockerRedisServer(container, endpoint, version);
            Reaper.closeAtExit(server);
            return server;
        } catch (RuntimeException e) {
            container.stop();
            throw new IllegalStateException("Cannot start Redis in Docker image " + image + " via Testcontainers: "
                    + e.getMessage(), e);
        }
    }

    @Override
    String unsupportedMessage(String operation) {
        return operation + " is not supported for Redis in Docker (" + uri() + "): a restarted container gets a"
                + " new port. Install redis-server (or keep org.signal:embedded-redis on the class path) to run"
                + " fault-injection tests.";
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            Reaper.forget(this);
            container.stop();
        }
    }

    @Override
    public String toString() {
        return "Redis " + version() + " in Docker at " + uri();
    }
}
