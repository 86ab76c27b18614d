package io.lodestar.spring;

import io.lodestar.core.model.ServiceInstance;

import java.net.URI;
import java.util.Map;

/**
 * A Lodestar instance as Spring Cloud sees it. The metadata is the instance's own, so the zone registered as the
 * {@code zone} entry is where Spring Cloud's zone preference looks for it.
 */
@SuppressWarnings("checkstyle:FullyQualifiedName") // Spring Cloud's ServiceInstance beside ours
final class LodestarServiceInstance implements org.springframework.cloud.client.ServiceInstance {
    private final ServiceInstance instance;

    LodestarServiceInstance(ServiceInstance instance) {
        this.instance = instance;
    }

    /** @return the Lodestar instance, with its weight and status */
    ServiceInstance instance() {
        return instance;
    }

    @Override
    public String getInstanceId() {
        return instance.instanceId();
    }

    @Override
    public String getServiceId() {
        return instance.serviceId();
    }

    @Override
    public String getHost() {
        return instance.host();
    }

    @Override
    public int getPort() {
        return instance.port();
    }

    @Override
    public boolean isSecure() {
        return instance.secure();
    }

    @Override
    public URI getUri() {
        return instance.uri();
    }

    @Override
    public String getScheme() {
        return instance.secure() ? "https" : "http";
    }

    @Override
    public Map<String, String> getMetadata() {
        return instance.metadata();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LodestarServiceInstance that && instance.equals(that.instance);
    }

    @Override
    public int hashCode() {
        return instance.hashCode();
    }

    @Override
    public String toString() {
        return "LodestarServiceInstance[" + instance.serviceId() + "/" + instance.instanceId() + " " + instance.uri()
                + "]";
    }
}
