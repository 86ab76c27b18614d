package io.lodestar.core;

import io.lodestar.core.model.ServiceInstance;

/**
 * Hears that this client stopped renewing an instance it registered for a reason other than its own deregister or
 * close (on a Lodestar thread, never Redis' I/O thread). Each lease ends at most once.
 */
@FunctionalInterface
public interface LeaseListener {
    /**
     * @param instance the instance as this client registered it
     * @param cause    why its lease ended
     */
    void leaseEnded(ServiceInstance instance, Cause cause);

    /** Why a lease ended. */
    enum Cause {
        /** Another client or an operator deregistered or {@linkplain ServiceRegistry#evict evicted} the instance. */
        REMOVED,
        /**
         * Another registration of the same instance id (another client's, e.g. a rescheduled pod while the old one
         * still runs) replaced the one this client made: that registration is its client's to renew.
         */
        TAKEN_OVER
    }
}
