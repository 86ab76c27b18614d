package io.lodestar.spring;

import io.lodestar.core.LodestarSettings;
import io.lodestar.loadbalancer.Strategy;
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
     * {@code lodestar.loadbalancer.*}: how {@code @LoadBalanced} {@code RestClient}s and {@code RestTemplate}s choose
     * an instance (Spring Cloud's {@code LoadBalancerClient}, backed by Lodestar's balancers over the local view).
     */
    public static class Balancing {
        /** Whether Lodestar chooses the instance of @LoadBalanced calls. */
        private boolean enabled = true;

        /** How an instance is chosen among the UP ones. */
        private Strategy strategy = Strategy.WEIGHTED_RANDOM;

        /** A zone whose instances are preferred while it has any (the "zone" metadata entry). */
        private String preferZone;

        /** Ramps a new instance's share of traffic up over this window (weighted strategies only); off by default. */
        private Duration slowStart;

        /** Seeds the random strategies, for reproducible choices (tests); random by default. */
        private Long seed;

        /** Per-service overrides of strategy, prefer-zone and slow-start, by service id. */
        private Map<String, ServiceBalancing> services = new LinkedHashMap<>();

        private final Canary canary = new Canary();

        /** @return whether Lodestar chooses the instance of @LoadBalanced calls */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether Lodestar chooses the instance of @LoadBalanced calls */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the strategy */
        public Strategy getStrategy() {
            return strategy;
        }

        /** @param strategy the strategy */
        public void setStrategy(Strategy strategy) {
            this.strategy = strategy;
        }

        /** @return the preferred zone, or null */
        public String getPreferZone() {
            return preferZone;
        }

        /** @param preferZone the preferred zone */
        public void setPreferZone(String preferZone) {
            this.preferZone = preferZone;
        }

        /** @return the slow-start window, or null */
        public Duration getSlowStart() {
            return slowStart;
        }

        /** @param slowStart the slow-start window */
        public void setSlowStart(Duration slowStart) {
            this.slowStart = slowStart;
        }

        /** @return the seed, or null */
        public Long getSeed() {
            return seed;
        }

        /** @param seed the seed */
        public void setSeed(Long seed) {
            this.seed = seed;
        }

        /** @return the canary split */
        public Canary getCanary() {
            return canary;
        }

        /** @return the per-service overrides, by service id */
        public Map<String, ServiceBalancing> getServices() {
            return services;
        }

        /** @param services the per-service overrides */
        public void setServices(Map<String, ServiceBalancing> services) {
            this.services = services;
        }
    }

    /**
     * {@code lodestar.loadbalancer.canary.*}: sends a share of the requests to canary instances (metadata
     * {@code canary=true}), the rest to the others.
     */
    public static class Canary {
        /** The share of requests, 0-100, that go to canary instances; no split when unset. */
        private Double percent;

        /** A request header that sends a request to the canaries when it has the hint value, e.g. X-Canary. */
        private String hintHeader;

        /** The value of the hint header that asks for a canary. */
        private String hintValue = "true";

        /** @return the share, or null for no split */
        public Double getPercent() {
            return percent;
        }

        /** @param percent the share, 0-100 */
        public void setPercent(Double percent) {
            this.percent = percent;
        }

        /** @return the hint header, or null for none */
        public String getHintHeader() {
            return hintHeader;
        }

        /** @param hintHeader the hint header */
        public void setHintHeader(String hintHeader) {
            this.hintHeader = hintHeader;
        }

        /** @return the hint value */
        public String getHintValue() {
            return hintValue;
        }

        /** @param hintValue the hint value */
        public void setHintValue(String hintValue) {
            this.hintValue = hintValue;
        }
    }

    /**
     * {@code lodestar.loadbalancer.services.<service-id>.*}: what differs for one service; unset values are the
     * global ones.
     */
    public static class ServiceBalancing {
        /** How an instance of this service is chosen. */
        private Strategy strategy;

        /** A zone whose instances of this service are preferred. */
        private String preferZone;

        /** The slow-start window of this service. */
        private Duration slowStart;

        /** @return the strategy, or null for the global one */
        public Strategy getStrategy() {
            return strategy;
        }

        /** @param strategy the strategy */
        public void setStrategy(Strategy strategy) {
            this.strategy = strategy;
        }

        /** @return the preferred zone, or null for the global one */
        public String getPreferZone() {
            return preferZone;
        }

        /** @param preferZone the preferred zone */
        public void setPreferZone(String preferZone) {
            this.preferZone = preferZone;
        }

        /** @return the slow-start window, or null for the global one */
        public Duration getSlowStart() {
            return slowStart;
        }

        /** @param slowStart the slow-start window */
        public void setSlowStart(Duration slowStart) {
            this.slowStart = slowStart;
        }
    }
}
