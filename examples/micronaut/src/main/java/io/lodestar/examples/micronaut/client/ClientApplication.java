package io.lodestar.examples.micronaut.client;

import io.micronaut.runtime.Micronaut;

/**
 * client-service: answers {@code GET /hello?name=...} by calling greeting-service through a declarative
 * {@code @Client(id = "greeting-service")}; Lodestar finds the instances and chooses one per call, by weight.
 *
 * <p>Its settings are in {@code application-client.properties}; the Redis URI comes from
 * {@code LODESTAR_REDIS_URI} (or {@code -Dlodestar.redis-uri=...}).
 */
public final class ClientApplication {
    /**
     * The Micronaut environment of this application. Only because two applications share this module: its beans
     * and property files are tied to it. A copied client-service would not need it.
     */
    public static final String ENVIRONMENT = "client";

    private ClientApplication() {
    }

    /**
     * Starts client-service (port 8080 unless {@code micronaut.server.port} says otherwise); it runs until the JVM
     * is stopped.
     *
     * @param args command line arguments, as Micronaut reads them
     */
    public static void main(String[] args) {
        builder(args).start();
    }

    /**
     * @param args command line arguments
     * @return a builder for this application, to which callers (the example launcher, tests) may add properties
     */
    public static Micronaut builder(String... args) {
        return Micronaut.build(args).mainClass(ClientApplication.class).environments(ENVIRONMENT);
    }
}
