package io.lodestar.micronaut;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.core.InstanceFilter;
import io.lodestar.core.model.ServiceInstance;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.discovery.DiscoveryClient;
import io.micronaut.health.HealthStatus;
import org.reactivestreams.Publisher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micronaut's {@link DiscoveryClient} over the local view, so {@code @Client(id = "orders")} resolves through
 * Lodestar. Only {@code UP} instances are listed: Micronaut's load balancers pick from whatever they are given.
 * Every publisher is lazy and completes from {@link AsyncServiceDiscovery}: at once when the view holds the
 * service, else on a Lodestar thread once it is loaded, never blocking an event loop.
 */
@SuppressWarnings("checkstyle:FullyQualifiedName") // Micronaut's ServiceInstance beside ours
final class LodestarDiscoveryClient implements DiscoveryClient {
    private final AsyncServiceDiscovery discovery;
    /**
     * The last mapping per service. Micronaut's load balancers ask for the instances on every request, and the
     * view returns the same list object until the service changes, so mapping once per change keeps a request
     * free of allocations, as a plain-Java read is.
     */
    private final Map<String, Mapped> mapped = new ConcurrentHashMap<>();

    LodestarDiscoveryClient(AsyncServiceDiscovery discovery) {
        this.discovery = discovery;
    }

    @Override
    public Publisher<List<io.micronaut.discovery.ServiceInstance>> getInstances(String serviceId) {
        return Publishers.fromCompletableFuture(() -> discovery.getInstances(serviceId, InstanceFilter.UP)
                .thenApply(instances -> map(serviceId, instances))
                .toCompletableFuture());
    }

    @Override
    public Publisher<List<String>> getServiceIds() {
        return Publishers.fromCompletableFuture(() -> discovery.getServices()
                .<List<String>>thenApply(ids -> {
                    List<String> sorted = new ArrayList<>(ids);
                    sorted.sort(null);
                    return sorted;
                })
                .toCompletableFuture());
    }

    @Override
    public String getDescription() {
        return "lodestar";
    }

    /** Nothing to release: the {@link io.lodestar.core.LodestarClient} bean is closed by its own bean definition. */
    @Override
    public void close() {
    }

    private List<io.micronaut.discovery.ServiceInstance> map(String serviceId, List<ServiceInstance> instances) {
        Mapped last = mapped.get(serviceId);
        if (last != null && last.source == instances) {
            return last.result;
        }
        List<io.micronaut.discovery.ServiceInstance> result = instances.stream()
                .map(LodestarDiscoveryClient::toMicronaut).toList();
        mapped.put(serviceId, new Mapped(instances, result));
        return result;
    }

    /**
     * Lodestar's metadata becomes Micronaut's; its well-known keys ({@code zone}, {@code region}, {@code group})
     * also fill the fields Micronaut's own components read, except that the region the client stamped on the
     * instance ({@link ServiceInstance#region()}) wins over a {@code region} metadata entry.
     */
    static io.micronaut.discovery.ServiceInstance toMicronaut(ServiceInstance instance) {
        io.micronaut.discovery.ServiceInstance.Builder builder = io.micronaut.discovery.ServiceInstance
                .builder(instance.serviceId(), instance.uri())
                .instanceId(instance.instanceId())
                .status(HealthStatus.UP)
                .metadata(instance.metadata());
        String zone = instance.metadata(io.micronaut.discovery.ServiceInstance.ZONE);
        if (zone != null) {
            builder.zone(zone);
        }
        // the region the client read it from wins: metadata is what anyone registered (kept for clients without one)
        String region = instance.region() != null ? instance.region()
                : instance.metadata(io.micronaut.discovery.ServiceInstance.REGION);
        if (region != null) {
            builder.region(region);
        }
        String group = instance.metadata(io.micronaut.discovery.ServiceInstance.GROUP);
        if (group != null) {
            builder.group(group);
        }
        return builder.build();
    }

    private record Mapped(List<ServiceInstance> source, List<io.micronaut.discovery.ServiceInstance> result) {
    }
}
