package io.lodestar.spring;

import io.lodestar.core.model.ServiceInstance;
import org.springframework.cloud.client.serviceregistry.Registration;

import java.net.URI;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The application's own registration as Spring Cloud's {@link Registration} (what {@code /actuator/serviceregistry}
 * shows and changes): it reads the instance {@link LodestarAutoRegistration} registered, which exists once the
 * context has started.
 */
final class LodestarRegistration implements Registration {
    private final Supplier<ServiceInstance> registered;

    LodestarRegistration(Supplier<ServiceInstance> registered) {
        this.registered = registered;
    }

    private ServiceInstance instance() {
        ServiceInstance instance = registered.get();
        if (instance == null) {
            throw new IllegalStateException("The application is not registered with Lodestar (yet): it registers "
                    + "once the context has started, when its web server listens or lodestar.registration.port is set, "
                    + "and Redis can be reached");
        }
        return instance;
    }

    @Override
    public String getInstanceId() {
        return instance().instanceId();
    }

    @Override
    public String getServiceId() {
        return instance().serviceId();
    }

    @Override
    public String getHost() {
        return instance().host();
    }

    @Override
    public int getPort() {
        return instance().port();
    }

    @Override
    public boolean isSecure() {
        return instance().secure();
    }

    @Override
    public URI getUri() {
        return instance().uri();
    }

    @Override
    public Map<String, String> getMetadata() {
        return instance().metadata();
    }
}
