package io.lodestar.core;

import io.lodestar.core.model.ServiceInstance;

/**
 * An instance this process registered. While it is open, an ephemeral instance is renewed in the background;
 * {@link #close()} deregisters it. Closing the client deregisters every <em>ephemeral</em> registration still open
 * (unless {@link LodestarOptions#deregisterOnClose()} is off). A <em>persistent</em> instance (TTL zero) outlives
 * the client that registered it, which is what persistent means: only {@link #close()} or
 * {@link ServiceRegistry#deregister} removes it.
 */
public interface Registration extends AutoCloseable {
    /** @return the instance as registered (with Redis' registration time) */
    ServiceInstance instance();

    /** @return the service revision the registration produced */
    long revision();

    /**
     * Stops renewing and deregisters the instance. Never throws, so it is safe in a shutdown path: when Redis cannot
     * be reached, or the client was closed (which already deregistered an ephemeral instance), it is logged and the
     * instance expires after its TTL.
     */
    @Override
    void close();
}
