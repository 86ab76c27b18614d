package io.lodestar.micronaut;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.model.ServiceInstance;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.discovery.event.AbstractServiceInstanceEvent;
import io.micronaut.discovery.event.ServiceReadyEvent;
import io.micronaut.discovery.event.ServiceStoppedEvent;
import io.micronaut.runtime.graceful.GracefulShutdownCapable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>When Redis cannot be reached at that moment, {@code lodestar.fail-fast=true} stops the start (the
 * {@link UnavailableException} propagates); by default the server starts anyway and the registration is retried in
 * the background ({@code registerWhenAvailable}) until Redis answers or the client closes.
 */
final class LodestarAutoRegistration
        implements ApplicationEventListener<AbstractServiceInstanceEvent>, GracefulShutdownCapable {
    private static final Logger LOG = LoggerFactory.getLogger(LodestarAutoRegistration.class);

    private final LodestarClient client;
    private final LodestarRegistrationConfiguration configuration;
    private final boolean failFast;
    private volatile boolean stopped;

    LodestarAutoRegistration(LodestarClient client, LodestarRegistrationConfiguration configuration,
                             boolean failFast) {
        this.client = client;
        this.configuration = configuration;
        this.failFast = failFast;
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
            register(instance);
        } else if (event instanceof ServiceStoppedEvent) {
            stopped = true;
            client.deregisterAll();
        }
    }

    private void register(ServiceInstance instance) {
        try {
            client.registry().register(instance);
        } catch (UnavailableException e) {
            if (failFast) {
                throw e;
            }
            LOG.warn("Cannot register {}/{} with Lodestar yet ({}); starting anyway and registering once Redis can "
                    + "be reached (lodestar.fail-fast=true stops the start instead)", instance.serviceId(),
                    instance.instanceId(), e.getMessage());
            client.registry().async().registerWhenAvailable(instance).whenComplete((registration, failure) -> {
                if (failure != null && stopped) { // closing the client ends the retries
                    LOG.info("Not registered {}/{} with Lodestar: the server stopped before Redis could be reached",
                            instance.serviceId(), instance.instanceId());
                } else if (failure != null) {
                    LOG.error("Gave up registering {}/{} with Lodestar", instance.serviceId(), instance.instanceId(),
                            failure);
                } else if (stopped) { // Redis came back while the server was stopping
                    registration.close();
                } else {
                    LOG.info("Registered {}/{} with Lodestar", instance.serviceId(), instance.instanceId());
                }
            });
        }
    }

    @Override
    public CompletionStage<?> shutdownGracefully() {
        stopped = true;
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
    @SuppressWarnings("checkstyle:FullyQualifiedName") // Micronaut's ServiceInstance beside ours
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
