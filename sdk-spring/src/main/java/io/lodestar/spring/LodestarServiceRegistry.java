package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.Violation;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;

import java.util.Arrays;
import java.util.Locale;

/**
 * Spring Cloud's {@link ServiceRegistry} over the client's registry, for {@code /actuator/serviceregistry} and for code
 * written against Spring Cloud: statuses are Lodestar's ({@code UP}, {@code DOWN}, {@code OUT_OF_SERVICE}, {@code
 * STARTING}, {@code UNKNOWN}). A registration is renewed by the client until it is deregistered or the client closes.
 */
class LodestarServiceRegistry implements ServiceRegistry<Registration> {
    private final LodestarClient lodestar;

    LodestarServiceRegistry(LodestarClient lodestar) {
        this.lodestar = lodestar;
    }

    /** @throws InvalidArgumentException when the registration breaks an instance rule (host, port, ids) */
    @Override
    public void register(Registration registration) {
        lodestar.registry().register(ServiceInstance.builder(registration.getServiceId(),
                        registration.getInstanceId()).host(registration.getHost()).port(registration.getPort())
                .secure(registration.isSecure()).metadata(registration.getMetadata()).build());
    }

    @Override
    public void deregister(Registration registration) {
        lodestar.registry().deregister(registration.getServiceId(), registration.getInstanceId());
    }

    /** The client is the application's bean: the context closes it, not this registry. */
    @Override
    public void close() {
    }

    /**
     * @throws InvalidArgumentException              when the status is not one of Lodestar's
     * @throws io.lodestar.core.NotFoundException     when the instance is not registered
     */
    @Override
    public void setStatus(Registration registration, String status) {
        lodestar.registry().setStatus(registration.getServiceId(), registration.getInstanceId(), parse(status));
    }

    /** @return the instance's status as Redis holds it, or null when it is not registered */
    @Override
    @SuppressWarnings("unchecked")
    public <T> T getStatus(Registration registration) {
        return (T) lodestar.directDiscovery().getInstance(registration.getServiceId(), registration.getInstanceId())
                .map(instance -> instance.status().name()).orElse(null);
    }

    private static InstanceStatus parse(String status) {
        try {
            return InstanceStatus.valueOf(String.valueOf(status).toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new InvalidArgumentException(new Violation("status", String.valueOf(status),
                    "one of " + Arrays.toString(InstanceStatus.values())));
        }
    }
}
