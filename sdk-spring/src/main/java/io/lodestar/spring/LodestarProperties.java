package io.lodestar.spring;

import io.lodestar.core.LodestarSettings;
import io.lodestar.loadbalancer.LoadBalancerSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code lodestar.*} properties: the core {@link LodestarSettings} (its defaults and validation are the plain
 * Java client's) plus the switches and the registration that only a Spring application has.
 */
@ConfigurationProperties(LodestarProperties.PREFIX)
public class LodestarProperties extends LodestarSettings {
    /** The property prefix. */
    public static final String PREFIX = "lodestar";

    /** Whether Lodestar's auto-configuration is on. */
    private boolean enabled = true;

    private final Discovery discovery = new Discovery();

    private final AutoRegistration registration = new AutoRegistration();

    private final Balancing loadbalancer = new Balancing();

    /** @return whether Lodestar's auto-configuration is on */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled whether Lodestar's auto-configuration is on */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the Spring Cloud discovery client settings */
    public Discovery getDiscovery() {
        return discovery;
    }

    /** @return the settings of the application's own registration */
    public AutoRegistration getRegistration() {
        return registration;
    }

    /** @return the settings of the load balancer behind {@code @LoadBalanced} clients */
    public Balancing getLoadbalancer() {
        return loadbalancer;
    }

    /** {@code lodestar.discovery.*}: the Spring Cloud {@code DiscoveryClient} and {@code ReactiveDiscoveryClient}. */
    public static class Discovery {
        /** Whether the Spring Cloud discovery clients backed by the local view are on. */
        private boolean enabled = true;

        /** @return whether the discovery clients are on */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the discovery clients are on */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * {@code lodestar.registration.*}: the instance registered for this application once its web server is ready.
     * Unset values fall back to the application ({@code spring.application.name}, the web server's port, the
     * first non-loopback address) or to the core defaults (weight, TTL).
     */
    public static class AutoRegistration {
        /** Whether the application registers itself. */
        private boolean enabled = true;

        /** The service to register under; defaults to spring.application.name. */
        private String serviceId;

        /** The instance id, unique within the service; defaults to host:port. */
        private String instanceId;

        /**
         * The host others call; defaults to server.address (unless it binds every interface), else the first
         * non-loopback address (Spring Cloud's InetUtils).
         */
        private String host;

        /** The port others call; defaults to the web server's port. Set it to register a non-web application. */
        private Integer port;

        /** Whether the instance speaks TLS (https). */
        private boolean secure;

        /** Relative share of traffic, 0-10000; defaults to the core default (100). */
        private Integer weight;

        /** The zone, registered as the "zone" metadata entry that zone-preferring balancers read. */
        private String zone;

        /** Free metadata registered with the instance. */
        private Map<String, String> metadata = new LinkedHashMap<>();

        /** Time to live of the registration, renewed in the background; defaults to the core default (30 s). */
        private Duration ttl;

        /** @return whether the application registers itself */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the application registers itself */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the service id, or null for spring.application.name */
        public String getServiceId() {
            return serviceId;
        }

        /** @param serviceId the service id */
        public void setServiceId(String serviceId) {
            this.serviceId = serviceId;
        }

        /** @return the instance id, or null for host:port */
        public String getInstanceId() {
            return instanceId;
        }

        /** @param instanceId the instance id */
        public void setInstanceId(String instanceId) {
            this.instanceId = instanceId;
        }

        /** @return the host, or null for the first non-loopback address */
        public String getHost() {
            return host;
        }

        /** @param host the host */
        public void setHost(String host) {
            this.host = host;
        }

        /** @return the port, or null for the web server's */
        public Integer getPort() {
            return port;
        }

        /** @param port the port */
        public void setPort(Integer port) {
            this.port = port;
        }

        /** @return whether the instance speaks TLS */
        public boolean isSecure() {
            return secure;
        }

        /** @param secure whether the instance speaks TLS */
        public void setSecure(boolean secure) {
            this.secure = secure;
        }

        /** @return the weight, or null for the core default */
        public Integer getWeight() {
            return weight;
        }

        /** @param weight the weight */
        public void setWeight(Integer weight) {
            this.weight = weight;
        }

        /** @return the zone, or null */
        public String getZone() {
            return zone;
        }

        /** @param zone the zone */
        public void setZone(String zone) {
            this.zone = zone;
        }

        /** @return the metadata */
        public Map<String, String> getMetadata() {
            return metadata;
        }

        /** @param metadata the metadata */
        public void setMetadata(Map<String, String> metadata) {
            this.metadata = metadata;
        }

        /** @return the TTL, or null for the core default */
        public Duration getTtl() {
            return ttl;
        }

        /** @param ttl the TTL */
        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }
    }

    /**
     * {@code lodestar.loadbalancer.*}: how {@code @LoadBalanced} {@code RestClient}s, {@code RestTemplate}s and
     * {@code WebClient}s choose an instance. The settings, their defaults and their validation are
     * {@link LoadBalancerSettings}' (the Micronaut module binds the same class); Spring adds only the switch.
     */
    public static class Balancing extends LoadBalancerSettings {
        /** Whether Lodestar chooses the instance of @LoadBalanced calls. */
        private boolean enabled = true;

        /** @return whether Lodestar chooses the instance of @LoadBalanced calls */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether Lodestar chooses the instance of @LoadBalanced calls */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
