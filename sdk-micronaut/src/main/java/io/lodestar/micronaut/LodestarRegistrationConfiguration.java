package io.lodestar.micronaut;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code lodestar.registration.*} properties: how the embedded server registers itself. Anything left unset
 * keeps the default of {@link io.lodestar.core.model.ServiceInstance.Builder} (weight, TTL), so the defaults live
 * in one place.
 */
@ConfigurationProperties(LodestarRegistrationConfiguration.PREFIX)
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarRegistrationConfiguration.ENABLED, notEquals = "false")
public class LodestarRegistrationConfiguration {
    /** The prefix of the registration properties. */
    public static final String PREFIX = LodestarConfiguration.PREFIX + ".registration";
    /** {@code false}: the server does not register itself (discovery still works). */
    public static final String ENABLED = PREFIX + ".enabled";

    private @Nullable String instanceId;
    private @Nullable String host;
    private @Nullable Integer weight;
    private @Nullable Duration ttl;
    private @Nullable String zone;
    private Map<String, String> metadata = new LinkedHashMap<>();

    /** @return the instance id, or null for {@code host:port} */
    public @Nullable String getInstanceId() {
        return instanceId;
    }

    /** @param instanceId the instance id, unique within the service; null for {@code host:port} */
    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId;
    }

    /** @return the advertised host, or null for the embedded server's */
    public @Nullable String getHost() {
        return host;
    }

    /** @param host the host other services call (e.g. behind NAT), or null for the embedded server's */
    public void setHost(@Nullable String host) {
        this.host = host;
    }

    /** @return the weight, or null for the core default */
    public @Nullable Integer getWeight() {
        return weight;
    }

    /** @param weight the load-balancing weight, or null for the core default */
    public void setWeight(@Nullable Integer weight) {
        this.weight = weight;
    }

    /** @return the TTL, or null for the core default */
    public @Nullable Duration getTtl() {
        return ttl;
    }

    /** @param ttl how long the instance lives without a renewal, or null for the core default */
    public void setTtl(@Nullable Duration ttl) {
        this.ttl = ttl;
    }

    /** @return the zone, or null */
    public @Nullable String getZone() {
        return zone;
    }

    /** @param zone the zone, registered as metadata {@code zone} (what zone preference reads), or null */
    public void setZone(@Nullable String zone) {
        this.zone = zone;
    }

    /** @return metadata added to Micronaut's {@code micronaut.application.instance.metadata} (these win) */
    public Map<String, String> getMetadata() {
        return metadata;
    }

    /** @param metadata metadata added to Micronaut's instance metadata (these win) */
    public void setMetadata(Map<String, String> metadata) {
        this.metadata = metadata;
    }
}
