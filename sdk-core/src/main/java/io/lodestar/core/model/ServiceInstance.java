package io.lodestar.core.model;

import org.jspecify.annotations.Nullable;
import io.lodestar.core.internal.FrozenMetadata;
import io.lodestar.core.internal.Validation;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One running instance of a service, as registered and as discovered. Immutable.
 *
 * <p>An instance is <em>ephemeral</em> when it has a {@link #ttl()}: it must be renewed within that time or it
 * expires (the SDK renews what it registers). A {@link Duration#ZERO} TTL makes it <em>persistent</em>: it stays
 * until deregistered.
 *
 * @param serviceId    the service it belongs to
 * @param instanceId   unique within the service
 * @param host         host name or IP address
 * @param port         TCP port, 1-65535
 * @param secure       whether it speaks TLS ({@code https} rather than {@code http})
 * @param weight       relative share of traffic, 0-10000; 0 = never chosen by weighted balancers
 * @param status       its own readiness
 * @param metadata     free key/value pairs (zone, version, canary...), sorted by key, unmodifiable
 * @param ttl          time to live for an ephemeral instance, {@link Duration#ZERO} for a persistent one
 * @param registeredAt when Redis accepted the registration (Redis time); {@code null} before registration
 * @param region       the region whose Redis the instance was read from, stamped by the client that read it (never
 *                     taken from the instance's metadata, never written to Redis: a registration's region is the
 *                     home region of the client that registers it); {@code null} when that client names no region
 */
public record ServiceInstance(String serviceId, String instanceId, String host, int port, boolean secure, int weight,
                              InstanceStatus status, Map<String, String> metadata, Duration ttl,
                              @Nullable Instant registeredAt, @Nullable String region) {

    /**
     * Validates every field and freezes the metadata (a sorted, unmodifiable copy; the metadata of another
     * instance is taken as it is, neither copied nor checked again).
     *
     * @throws io.lodestar.core.InvalidArgumentException naming every broken rule
     */
    public ServiceInstance {
        var checks = Validation.collector()
                .serviceId("serviceId", serviceId)
                .instanceId("instanceId", instanceId)
                .host("host", host)
                .port("port", port)
                .weight("weight", weight)
                .notNull("status", status);
        Map<String, String> frozen = FrozenMetadata.freeze("metadata", metadata, checks);
        checks.notNull("ttl", ttl);
        if (ttl != null && !ttl.isZero()) {
            checks.ttl("ttl", ttl);
        }
        if (region != null) {
            checks.region("region", region);
        }
        checks.throwIfInvalid();
        metadata = frozen;
    }

    /**
     * An instance without a region (as every instance was before regions existed).
     *
     * @throws io.lodestar.core.InvalidArgumentException naming every broken rule
     */
    public ServiceInstance(String serviceId, String instanceId, String host, int port, boolean secure, int weight,
                           InstanceStatus status, Map<String, String> metadata, Duration ttl,
                           @Nullable Instant registeredAt) {
        this(serviceId, instanceId, host, port, secure, weight, status, metadata, ttl, registeredAt, null);
    }

    /**
     * Starts a builder with the defaults: weight {@value Validation#DEFAULT_WEIGHT}, status UP, no metadata,
     * ephemeral with a TTL of {@link Validation#DEFAULT_TTL} (so a crashed process's instances go away).
     *
     * @param serviceId  the service
     * @param instanceId the instance id, unique within the service
     * @return a builder
     */
    public static Builder builder(String serviceId, String instanceId) {
        return new Builder(serviceId, instanceId);
    }

    /** @return a builder pre-filled with this instance's values */
    public Builder toBuilder() {
        return new Builder(serviceId, instanceId).host(host).port(port).secure(secure).weight(weight).status(status)
                .metadata(metadata).ttl(ttl).registeredAt(registeredAt).region(region);
    }

    /** @return true when the instance expires unless renewed */
    public boolean ephemeral() {
        return !ttl.isZero();
    }

    /** @return {@code http://host:port} or {@code https://host:port}, an IPv6 host in brackets */
    public URI uri() {
        boolean bareIpv6 = host.indexOf(':') >= 0 && !host.startsWith("[");
        return URI.create((secure ? "https" : "http") + "://" + (bareIpv6 ? "[" + host + "]" : host) + ":" + port);
    }

    /**
     * @param key a metadata key
     * @return its value, or {@code null}
     */
    public @Nullable String metadata(String key) {
        return metadata.get(key);
    }

    /** Builds a {@link ServiceInstance}; {@link #build()} validates. */
    public static final class Builder {
        private final String serviceId;
        private final String instanceId;
        private String host;
        private int port;
        private boolean secure;
        private int weight = Validation.DEFAULT_WEIGHT;
        private InstanceStatus status = InstanceStatus.UP;
        /** Either frozen metadata (of the instance this builder came from), shared, or this builder's own map. */
        private Map<String, String> metadata = Map.of();
        private boolean ownMetadata;
        private Duration ttl = Validation.DEFAULT_TTL;
        private @Nullable Instant registeredAt;
        private @Nullable String region;

        private Builder(String serviceId, String instanceId) {
            this.serviceId = serviceId;
            this.instanceId = instanceId;
        }

        /** @return this builder, with the host set */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** @return this builder, with the port set */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** @return this builder, with TLS on or off */
        public Builder secure(boolean secure) {
            this.secure = secure;
            return this;
        }

        /** @return this builder, with the weight set */
        public Builder weight(int weight) {
            this.weight = weight;
            return this;
        }

        /** @return this builder, with the status set */
        public Builder status(InstanceStatus status) {
            this.status = status;
            return this;
        }

        /** @return this builder, with one metadata entry added or replaced */
        public Builder metadata(String key, String value) {
            if (!ownMetadata) {
                metadata = new LinkedHashMap<>(metadata);
                ownMetadata = true;
            }
            metadata.put(key, value);
            return this;
        }

        /** @return this builder, with the metadata replaced by a copy of {@code metadata} */
        public Builder metadata(Map<String, String> metadata) {
            if (metadata == null || metadata instanceof FrozenMetadata) { // frozen: immutable, so shared
                this.metadata = metadata == null ? Map.of() : metadata;
                ownMetadata = false;
            } else {
                this.metadata = new LinkedHashMap<>(metadata);
                ownMetadata = true;
            }
            return this;
        }

        /** @return this builder, ephemeral with that TTL ({@link Duration#ZERO} = persistent) */
        public Builder ttl(Duration ttl) {
            this.ttl = ttl;
            return this;
        }

        /** @return this builder, persistent (no TTL) */
        public Builder persistent() {
            return ttl(Duration.ZERO);
        }

        /** @return this builder, with the registration time set (normally done by the registry) */
        public Builder registeredAt(@Nullable Instant registeredAt) {
            this.registeredAt = registeredAt;
            return this;
        }

        /**
         * @return this builder, with the region set (normally stamped by the client that reads the instance; a
         *     registration ignores it)
         */
        public Builder region(@Nullable String region) {
            this.region = region;
            return this;
        }

        /**
         * @return the instance
         * @throws io.lodestar.core.InvalidArgumentException naming every broken rule
         */
        public ServiceInstance build() {
            return new ServiceInstance(serviceId, instanceId, host, port, secure, weight, status, metadata, ttl,
                    registeredAt, region);
        }
    }
}
