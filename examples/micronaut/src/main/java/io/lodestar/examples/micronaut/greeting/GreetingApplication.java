package io.lodestar.examples.micronaut.greeting;

import io.micronaut.runtime.Micronaut;

/**
 * greeting-service: registers itself in Lodestar when its server is ready (weight and zone from
 * {@code lodestar.registration.*}) and answers {@code GET /greeting?name=...} from a template held in Lodestar
 * config {@code greeting/template}, refreshed live when that config changes.
 *
 * <p>Its settings are in {@code bootstrap-greeting.properties} and {@code application-greeting.properties}; the
 * Redis URI comes from {@code LODESTAR_REDIS_URI} (or {@code -Dlodestar.redis-uri=...}).
 */
public final class GreetingApplication {
    /**
     * The Micronaut environment of this application. Only because two applications share this module: its beans
     * and property files are tied to it. A copied greeting-service would not need it.
     */
    public static final String ENVIRONMENT = "greeting";

    private GreetingApplication() {
    }

    /**
     * Starts greeting-service; it runs until the JVM is stopped.
     *
     * @param args command line arguments, as Micronaut reads them ({@code -lodestar.registration.weight=3})
     */
    public static void main(String[] args) {
        builder(args).start();
    }

    /**
     * @param args command line arguments
     * @return a builder for this application, to which callers (the example launcher, tests) may add properties
     */
    public static Micronaut builder(String... args) {
        return Micronaut.build(args).mainClass(GreetingApplication.class).environments(ENVIRONMENT);
    }
}
