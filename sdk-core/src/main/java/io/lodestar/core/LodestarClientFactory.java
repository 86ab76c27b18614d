package io.lodestar.core;

/**
 * Service-provider interface: a backend module (e.g. {@code lodestar-redis}) registers one implementation in
 * {@code META-INF/services/io.lodestar.core.LodestarClientFactory}; {@link Lodestar#connect(LodestarOptions)}
 * uses it. Applications do not implement this.
 */
public interface LodestarClientFactory {
    /**
     * @param options validated options
     * @return a connected client
     */
    LodestarClient create(LodestarOptions options);
}
