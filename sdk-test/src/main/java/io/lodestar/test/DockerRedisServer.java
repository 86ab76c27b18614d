package io.lodestar.test;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis server in a Docker container run by Testcontainers (step 4, only when no binary is found).
 * Not managed: a container restart would get a new mapped port, so {@link #kill()} and {@link #restart()} are
 * unsupported. Only {@link DockerSupport} may load this class, after checking that Testcontainers is present.
 */
final class DockerRedisServer implements RedisServer {

    private final GenericContainer<?> container;
    private final String host;
    private final int port;
    private final String version;
    private boolean closed;

    private DockerRedisServer(GenericContainer<?> container, String host, int port, String version) {
        this.container = container;
        this.host = host;
        this.port = port;
        this.version = version;
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
            String host = container.getHost();
            int port = container.getMappedPort(RedisEndpoint.DEFAULT_PORT);
            String version = ServerInfo.version(RedisEndpoint.plain(host, port), image);
            DockerRedisServer server = new DockerRedisServer(container, host, port, version);
            Reaper.closeAtExit(server);
            return server;
        } catch (RuntimeException e) {
            container.stop();
            throw new IllegalStateException("Cannot start Redis in Docker image " + image + " via Testcontainers: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public String uri() {
        return "redis://" + host + ":" + port;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
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
        return new UnsupportedOperationException(operation + " is not supported for Redis in Docker (" + uri()
                + "): a restarted container gets a new port. Install redis-server (or keep org.signal:embedded-redis"
                + " on the class path) to run fault-injection tests.");
    }

    @Override
    public long disconnectClients(String type) {
        return ServerInfo.clientKill(RedisEndpoint.plain(host, port), type);
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
        return "Redis " + version + " in Docker at " + uri();
    }
}
