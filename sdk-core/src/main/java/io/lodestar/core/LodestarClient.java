package io.lodestar.core;

import io.lodestar.core.model.Namespace;

/**
 * One connection to the registry and config store of one namespace. Thread-safe; create one per application
 * and share it. {@link #close()} deregisters what this client registered and releases its connections.
 */
public interface LodestarClient extends AutoCloseable {
    /** @return the namespace every operation of this client works in */
    Namespace namespace();

    /** @return registry writes (register, renew, deregister, metadata) */
    ServiceRegistry registry();

    /** @return the local, PubSub-fed view of the registry: reads without a network call */
    ServiceDiscovery discovery();

    /** @return a reader that asks Redis on every call (for tools, and as a baseline) */
    ServiceDiscovery directDiscovery();

    /** @return the configuration service */
    ConfigService config();

    /**
     * Deregisters this client's ephemeral registrations (when so configured; persistent ones stay, see
     * {@link Registration}), stops its threads and closes connections. Idempotent. Registrations that complete
     * while it runs are deregistered too. Afterwards every operation of {@link #registry()}, {@link #discovery()},
     * {@link #directDiscovery()} and {@link #config()}, synchronous or async, and every subscribe fails with
     * {@link ClientClosedException}.
     */
    @Override
    void close();
}
