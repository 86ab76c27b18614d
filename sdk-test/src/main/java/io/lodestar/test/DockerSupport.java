package io.lodestar.test;

/**
 * Guards the optional Testcontainers dependency: nothing here links against Testcontainers classes, so this
 * class loads whether or not they are on the class path. {@link DockerRedisServer} is touched only after
 * {@link #isAvailable} said yes.
 */
final class DockerSupport {

    static final String FACTORY_CLASS = "org.testcontainers.DockerClientFactory";

    private DockerSupport() {
    }

    static boolean isTestcontainersPresent() {
        try {
            Class.forName(FACTORY_CLASS, false, DockerSupport.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Whether Testcontainers is present and finds a Docker daemon; appends why not to {@code notes}. */
    static boolean isAvailable(StringBuilder notes) {
        if (!isTestcontainersPresent()) {
            notes.append("org.testcontainers:testcontainers is not on the class path");
            return false;
        }
        try {
            if (DockerRedisServer.isDockerAvailable()) {
                return true;
            }
            notes.append("Docker is not available");
        } catch (RuntimeException | LinkageError e) {
            notes.append("Docker check failed: ").append(e);
        }
        return false;
    }

    /**
     * Starts a Redis container.
     *
     * @throws IllegalStateException if it does not start
     */
    static RedisServer start(String image) {
        return DockerRedisServer.start(image);
    }
}
