package io.lodestar.core;

/**
 * Hears connections to Redis nodes come and go (on a Lodestar thread, never Redis' I/O thread). Both methods are
 * no-ops by default. A node is named {@code host:port}, never with credentials.
 */
public interface ConnectionStateListener {
    /** @param node the node a connection was established to */
    default void connected(String node) {
    }

    /** @param node the node a connection was lost to; Lodestar reconnects by itself */
    default void disconnected(String node) {
    }
}
