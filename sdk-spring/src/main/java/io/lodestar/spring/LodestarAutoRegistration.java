package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.Selectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

import java.util.function.Supplier;

/**
 * Registers the application from {@code lodestar.registration.*} when the context starts, once the web server
 * listens (its lifecycle phase is later than the web server's), and takes the client's instances out of service
 * first thing at shutdown: it stops before the web server's graceful shutdown (which closes the port at once, then
 * waits for requests in flight), so consumers stop choosing this instance before the port closes.
 * {@link LodestarDeregistration} removes the instances once those requests have finished.
 *
 * <p>When Redis cannot be reached at start-up, {@code lodestar.fail-fast=true} fails the start (the
 * {@link UnavailableException} reaches the context); by default the application starts anyway and the registration
 * is retried in the background ({@code registerWhenAvailable}) until Redis answers or the client closes.
 */
class LodestarAutoRegistration implements SmartLifecycle {
    /** After the web server starts, before its graceful shutdown stops (stop runs in reverse phase order). */
    static final int PHASE = WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE + 512;
    private static final Logger LOG = LoggerFactory.getLogger(LodestarAutoRegistration.class);

    private final LodestarClient lodestar;
    private final LodestarProperties.AutoRegistration properties;
    private final String applicationName;
    private final Supplier<String> defaultHost;
    private final boolean failFast;
    private volatile Integer webServerPort;
    private volatile ServiceInstance registered;
    private volatile boolean running;
    private volatile boolean stopped;

    LodestarAutoRegistration(LodestarClient lodestar, LodestarProperties.AutoRegistration properties,
                             String applicationName, Supplier<String> defaultHost, boolean failFast) {
        this.lodestar = lodestar;
        this.failFast = failFast;
        this.properties = properties;
        this.applicationName = applicationName;
        this.defaultHost = defaultHost;
    }

    /** @param port the port the application's web server listens on */
    void webServerStarted(int port) {
        this.webServerPort = port;
    }

    @Override
    public void start() {
        Integer port = properties.getPort() != null ? properties.getPort() : webServerPort;
        if (port == null) {
            LOG.info("Not registering with Lodestar: no web server started and lodestar.registration.port is not set");
        } else {
            register(instance(port));
        }
        running = true;
    }

    private void register(ServiceInstance instance) {
        try {
            registered(lodestar.registry().register(instance).instance());
        } catch (UnavailableException e) {
            if (failFast) {
                throw e;
            }
            LOG.warn("Cannot register {}/{} with Lodestar yet ({}); starting anyway and registering once Redis can "
                    + "be reached (lodestar.fail-fast=true fails the start instead)", instance.serviceId(),
                    instance.instanceId(), e.getMessage());
            lodestar.registry().async().registerWhenAvailable(instance).whenComplete((registration, failure) -> {
                if (failure != null && stopped) { // closing the client ends the retries
                    LOG.info("Not registered {}/{} with Lodestar: the application stopped before Redis could be reached",
                            instance.serviceId(), instance.instanceId());
                } else if (failure != null) {
                    LOG.error("Gave up registering {}/{} with Lodestar", instance.serviceId(), instance.instanceId(),
                            failure);
                } else if (stopped) { // Redis came back while the application was shutting down
                    registration.close();
                } else {
                    registered(registration.instance());
                }
            });
        }
    }

    private void registered(ServiceInstance instance) {
        registered = instance;
        LOG.info("Registered {}/{} at {} with Lodestar", instance.serviceId(), instance.instanceId(), instance.uri());
    }

    /**
     * @return the instance registered when the context started (or, after a start without Redis, once Redis could be
     *     reached), or null (not yet, or nothing to register)
     */
    ServiceInstance registered() {
        return registered;
    }

    /** The first phase of a graceful shutdown: consumers stop choosing this application's instances. */
    @Override
    public void stop() {
        running = false;
        stopped = true;
        lodestar.drain();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private ServiceInstance instance(int port) {
        String serviceId = properties.getServiceId() != null ? properties.getServiceId() : applicationName;
        String host = properties.getHost() != null ? properties.getHost() : defaultHost.get();
        // host:port, as the Micronaut module: instance ids are unique within their service already
        String instanceId = properties.getInstanceId() != null ? properties.getInstanceId() : host + ":" + port;
        try {
            ServiceInstance.Builder builder = ServiceInstance.builder(serviceId, instanceId).host(host).port(port)
                    .secure(properties.isSecure()).metadata(properties.getMetadata());
            if (properties.getZone() != null) {
                builder.metadata(Selectors.ZONE, properties.getZone());
            }
            if (properties.getWeight() != null) {
                builder.weight(properties.getWeight());
            }
            if (properties.getTtl() != null) {
                builder.ttl(properties.getTtl());
            }
            return builder.build();
        } catch (InvalidArgumentException e) {
            throw InvalidLodestarPropertiesException.of(LodestarProperties.PREFIX + ".registration", e);
        }
    }
}
