package io.lodestar.core;

import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking twin of {@link ServiceRegistry}: same semantics, and the stages complete exceptionally with
 * the same exceptions (Lodestar's own, never a Redis client's). Bad input fails the returned stage (it is never
 * thrown from the call).
 */
public interface AsyncServiceRegistry {
    /** @see ServiceRegistry#register(ServiceInstance) */
    CompletionStage<Registration> register(ServiceInstance instance);

    /**
     * Registers the instance as soon as Redis can be reached: while it cannot ({@link UnavailableException}, e.g.
     * after an {@link StartupMode#OFFLINE} start or during an outage), the registration is retried with backoff
     * (0.1 s doubling to 2 s, with jitter) until it succeeds or the client is closed. Any other failure (bad input,
     * access denied, a script failure) completes the stage at once, as {@link #register} would. What a framework
     * calls at start-up so that a brief Redis outage does not fail the application.
     *
     * @param instance the instance
     * @return completes with the registration once Redis accepted it
     */
    CompletionStage<Registration> registerWhenAvailable(ServiceInstance instance);

    /** @see ServiceRegistry#renew(String, String) */
    CompletionStage<Void> renew(String serviceId, String instanceId);

    /** @see ServiceRegistry#deregister(String, String) */
    CompletionStage<Boolean> deregister(String serviceId, String instanceId);

    /** @see ServiceRegistry#evict(String, String) */
    CompletionStage<Boolean> evict(String serviceId, String instanceId);

    /** @see ServiceRegistry#setMetadata(String, String, Map) */
    CompletionStage<ServiceInstance> setMetadata(String serviceId, String instanceId, Map<String, String> metadata);

    /** @see ServiceRegistry#updateMetadata(String, String, Map, Set) */
    CompletionStage<ServiceInstance> updateMetadata(String serviceId, String instanceId, Map<String, String> put,
                                                    Set<String> remove);

    /** @see ServiceRegistry#setStatus(String, String, InstanceStatus) */
    CompletionStage<ServiceInstance> setStatus(String serviceId, String instanceId, InstanceStatus status);

    /** @see ServiceRegistry#setWeight(String, String, int) */
    default CompletionStage<ServiceInstance> setWeight(String serviceId, String instanceId, int weight) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "AsyncServiceRegistry.setWeight is not supported by this implementation"));
    }

    /** @see ServiceRegistry#timeToLive(String) */
    CompletionStage<Map<String, Duration>> timeToLive(String serviceId);
}
