package io.lodestar.core;

import io.lodestar.core.internal.Validation;
import java.util.ServiceLoader;

/**
 * The entry point: {@code try (LodestarClient client = Lodestar.connect("redis://localhost:6379")) { ... }}.
 * Needs a backend module such as {@code lodestar-redis} on the class path.
 */
public final class Lodestar {
    private Lodestar() {
    }

    /**
     * Connects with the defaults and the {@code default} namespace.
     *
     * @param redisUri e.g. {@code redis://localhost:6379}, {@code rediss://user:pass@host:6380},
     *                 {@code redis-sentinel://host:26379#mymaster} or {@code redis-cluster://h1:7000,h2:7001}
     * @return a connected client
     */
    public static LodestarClient connect(String redisUri) {
        return connect(LodestarOptions.builder(redisUri).build());
    }

    /**
     * @param options the options
     * @return a connected client
     * @throws LodestarException when no backend module is on the class path
     */
    public static LodestarClient connect(LodestarOptions options) {
        Validation.requireNonNull("options", options);
        return ServiceLoader.load(LodestarClientFactory.class, Lodestar.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new LodestarException(
                        "No Lodestar backend found on the class path: add the io.lodestar:lodestar-redis dependency"))
                .create(options);
    }
}
