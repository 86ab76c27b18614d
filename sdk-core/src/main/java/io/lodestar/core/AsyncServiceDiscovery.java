package io.lodestar.core;

import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking twin of {@link ServiceDiscovery}'s reads, for threads that must never block (request threads of
 * a reactive server, event loops). A read of data the view holds returns an already completed stage; otherwise the
 * stage completes when the data is loaded, on a Lodestar thread (never Redis' I/O thread), so continuations never
 * run on an event loop. Failures complete the stage with Lodestar exceptions only; bad input fails the stage too.
 */
public interface AsyncServiceDiscovery {
    /** @see ServiceDiscovery#getServices() */
    CompletionStage<Set<String>> getServices();

    /** @see ServiceDiscovery#getInstances(String) */
    CompletionStage<List<ServiceInstance>> getInstances(String serviceId);

    /** @see ServiceDiscovery#getInstances(String, InstanceFilter) */
    CompletionStage<List<ServiceInstance>> getInstances(String serviceId, InstanceFilter filter);

    /** @see ServiceDiscovery#getInstance(String, String) */
    CompletionStage<Optional<ServiceInstance>> getInstance(String serviceId, String instanceId);

    /** @see ServiceDiscovery#getSnapshot(String) */
    CompletionStage<ServiceSnapshot> getSnapshot(String serviceId);
}
