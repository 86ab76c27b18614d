package io.lodestar.micronaut;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ServiceInstance;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.discovery.event.AbstractServiceInstanceEvent;
import io.micronaut.discovery.event.ServiceReadyEvent;
import io.micronaut.discovery.event.ServiceStoppedEvent;
import io.micronaut.runtime.graceful.GracefulShutdownCapable;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Registers the embedded server when Micronaut says it is ready ({@link ServiceReadyEvent}, published once the
 * server listens and {@code micronaut.application.name} is set); the client renews it from then on. Shutting down
 * has two phases, as {@link LodestarClient#drain()} describes: a graceful shutdown
 * ({@code micronaut.lifecycle.graceful-shutdown.enabled}) first marks it {@code OUT_OF_SERVICE} while requests in
 * flight finish, then {@link ServiceStoppedEvent} deregisters it.
 */
final class LodestarAutoRegistration
        implements ApplicationEventListener<AbstractServiceInstanceEvent>, GracefulShutdownCapable {
    private final LodestarClient client;
    private final LodestarRegistrationConfiguration configuration;

    LodestarAutoRegistration(LodestarClient client, LodestarRegistrationConfiguration configuration) {
        this.client = client;
        this.configuration = configuration;
    }

    @Override
    public void onApplicationEvent(AbstractServiceInstanceEvent event) {
        if (event instanceof ServiceReadyEvent) {
            ServiceInstance instance;
            try {
                instance = instance(event.getSource());
            } catch (InvalidArgumentException e) {
                throw new ConfigurationException(LodestarFactory.describe(e, LodestarAutoRegistration::property), e);
            }
            client.registry().register(instance);
        } else if (event instanceof ServiceStoppedEvent) {
            client.deregisterAll();
        }
    }

    @Override
    public CompletionStage<?> shutdownGracefully() {
        client.drain();
        return CompletableFuture.completedFuture(null);
    }

    /** The property a field of the registered instance comes from, for error messages. */
    private static String property(String field) {
        return switch (field) {
            case "serviceId" -> "micronaut.application.name";
            case "port" -> "micronaut.server.port";
            default -> LodestarRegistrationConfiguration.PREFIX + "." + LodestarFactory.kebab(field);
        };
    }

    /**
     * @throws InvalidArgumentException naming the invalid field
     */
    ServiceInstance instance(io.micronaut.discovery.ServiceInstance server) {
        String host = configuration.getHost() != null ? configuration.getHost() : server.getHost();
        String instanceId = configuration.getInstanceId() != null
                ? configuration.getInstanceId() : host + ":" + server.getPort();
        Map<String, String> metadata = new LinkedHashMap<>(server.getMetadata().asMap(String.class, String.class));
        if (configuration.getZone() != null) {
            metadata.put(io.micronaut.discovery.ServiceInstance.ZONE, configuration.getZone());
        }
        metadata.putAll(configuration.getMetadata());
        ServiceInstance.Builder builder = ServiceInstance.builder(server.getId(), instanceId)
                .host(host).port(server.getPort()).secure(server.isSecure()).metadata(metadata);
        if (configuration.getWeight() != null) {
            builder.weight(configuration.getWeight());
        }
        if (configuration.getTtl() != null) {
            builder.ttl(configuration.getTtl());
        }
        return builder.build();
    }
}
