package io.lodestar.core;

import io.lodestar.core.model.ServiceInstance;

/**
 * An instance this process registered. While it is open, an ephemeral instance is renewed in the background;
 * {@link #close()} deregisters it. Closing the client deregisters every registration still open.
 */
public interface Registration extends AutoCloseable {
    /** @return the instance as registered (with Redis' registration time) */
    ServiceInstance instance();

    /** @return the service revision the registration produced */
    long revision();

    /**
     * Stops renewing and deregisters the instance. Never throws, so it is safe in a shutdown path: when Redis cannot
     * be reached the failure is logged and the instance expires after its TTL.
     */
    @Override
    void close();
}
