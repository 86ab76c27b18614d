package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.Violation;
import io.lodestar.core.internal.Validation;

import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The load-balancer settings as a mutable bean, for property binding: the Spring Boot and Micronaut modules bind
 * {@code lodestar.loadbalancer.*} onto subclasses that only add their annotations, so both take the same properties
 * with the same defaults and the same validation. {@link #validate()} checks every setting at once;
 * {@link #toLoadBalancer(String)} builds the balancer of one service.
 *
 * <p>A balancer built from these settings runs, in this order: the healthy-only filter, the metadata selectors
 * ({@link #getMetadata()}), the canary split ({@link #getCanary()}), the region preference and then the zone
 * preference within each side (same zone, else same region, else any), then the strategy (with slow start when set). What {@code services.<id>.*} sets replaces the global value for that
 * service; its metadata entries are added to the global ones.
 *
 * <p>Violations name the setting as a property below the prefix the settings are bound at, in kebab case:
 * {@code slow-start}, {@code canary.hint-header}, {@code services.orders.prefer-zone}, {@code prefer-region},
 * {@code metadata.version}.
 * A framework adds its prefix ({@code lodestar.loadbalancer.}).
 */
public class LoadBalancerSettings {
    private Strategy strategy = Strategy.WEIGHTED_RANDOM;
    private String preferZone;
    private String preferRegion;
    private Duration slowStart;
    private Long seed;
    private Map<String, String> metadata = new LinkedHashMap<>();
    private final Canary canary = new Canary();
    private Map<String, Service> services = new LinkedHashMap<>();

    /**
     * Checks the global settings and every service's, reporting all broken rules at once.
     *
     * @throws InvalidArgumentException naming every invalid setting by its property
     */
    public void validate() {
        Set<Violation> violations = new LinkedHashSet<>(); // a bad global value is reported once, not per service
        build(null, Clock.systemUTC(), violations);
        services.keySet().forEach(serviceId -> build(serviceId, Clock.systemUTC(), violations));
        throwIfAny(violations);
    }

    /**
     * @param serviceId the service, whose {@code services.<id>.*} settings (if any) replace the global ones
     * @return a new, thread-safe balancer for that service
     * @throws InvalidArgumentException naming every invalid setting that applies to the service, or a null or
     *                                  invalid service id
     */
    public LoadBalancer toLoadBalancer(String serviceId) {
        return toLoadBalancer(serviceId, Clock.systemUTC());
    }

    /** With a clock for slow start: tests. */
    LoadBalancer toLoadBalancer(String serviceId, InstantSource clock) {
        Validation.requireNonNull("serviceId", serviceId);
        Set<Violation> violations = new LinkedHashSet<>();
        LoadBalancer balancer = build(serviceId, clock, violations);
        throwIfAny(violations);
        return balancer;
    }

    /**
     * Builds the balancer of {@code serviceId} (null: the global settings alone), adding what the builder rejects
     * to {@code violations} under the property the value came from; null when anything was rejected.
     */
    private LoadBalancer build(String serviceId, InstantSource clock, Set<Violation> violations) {
        Service own = serviceId == null ? null : services.get(serviceId);
        String ownPrefix = "services." + serviceId + ".";
        Strategy chosenStrategy = own != null && own.strategy != null ? own.strategy : strategy;
        String strategyProperty = own != null && own.strategy != null ? ownPrefix + "strategy" : "strategy";
        String zone = own != null && own.preferZone != null ? own.preferZone : preferZone;
        String zoneProperty = own != null && own.preferZone != null ? ownPrefix + "prefer-zone" : "prefer-zone";
        String region = own != null && own.preferRegion != null ? own.preferRegion : preferRegion;
        String regionProperty = own != null && own.preferRegion != null ? ownPrefix + "prefer-region"
                : "prefer-region";
        Duration window = own != null && own.slowStart != null ? own.slowStart : slowStart;
        String windowProperty = own != null && own.slowStart != null ? ownPrefix + "slow-start" : "slow-start";

        LoadBalancers.Builder builder = LoadBalancers.builder(chosenStrategy).clock(clock);
        if (serviceId != null) {
            builder.serviceId(serviceId);
        }
        Map<String, String> selected = new LinkedHashMap<>(metadata);
        if (own != null) {
            selected.putAll(own.metadata);
        }
        selected.forEach((key, value) -> {
            String property = (own != null && own.metadata.containsKey(key) ? ownPrefix : "") + "metadata." + key;
            attempt(() -> builder.selector(Selectors.metadata(key, value)), field -> property, violations);
        });
        if (canary.percent != null || canary.hintHeader != null) {
            // Share and hint checked separately, so that both are reported when both are bad.
            CanaryRouting shared = attempt(() -> CanaryRouting.byMetadata()
                    .percent(canary.percent == null ? 0 : canary.percent), field -> field, violations);
            CanaryRouting routing = canary.hintHeader == null ? shared
                    : attempt(() -> (shared == null ? CanaryRouting.byMetadata() : shared)
                            .hint(canary.hintHeader, canary.hintValue), field -> switch (field) {
                                case "canary.hintAttribute" -> "canary.hint-header";
                                case "canary.hintValue" -> "canary.hint-value";
                                default -> field;
                            }, violations);
            if (shared != null && routing != null) {
                builder.canary(routing);
            }
        }
        // Region before zone: the zone preference then picks within the region kept, which is what makes
        // "same zone, else same region, else any" out of two preferences.
        if (region != null) {
            attempt(() -> builder.selector(Selectors.regionPreference(region)), field -> regionProperty, violations);
        }
        if (zone != null) {
            attempt(() -> builder.selector(Selectors.zonePreference(zone)), field -> zoneProperty, violations);
        }
        if (window != null) {
            builder.slowStart(window);
        }
        if (seed != null) {
            builder.seed(seed);
        }
        return attempt(builder::build, field -> switch (field) {
            case "strategy" -> strategyProperty;
            case "slowStart" -> windowProperty;
            case "serviceId" -> own != null ? "services." + serviceId : field;
            default -> field;
        }, violations);
    }

    /** Runs one step of the build; what it rejects goes to {@code violations}, each field renamed to its property. */
    private static <T> T attempt(Supplier<T> step, UnaryOperator<String> property, Set<Violation> violations) {
        try {
            return step.get();
        } catch (InvalidArgumentException e) {
            e.violations().forEach(v -> violations.add(new Violation(property.apply(v.field()), v.value(), v.rule())));
            return null;
        }
    }

    private static void throwIfAny(Set<Violation> violations) {
        if (!violations.isEmpty()) {
            throw new InvalidArgumentException(new ArrayList<>(violations));
        }
    }

    /** @return how an instance is chosen among those left (default {@link Strategy#WEIGHTED_RANDOM}) */
    public Strategy getStrategy() {
        return strategy;
    }

    /** @param strategy how an instance is chosen among those left */
    public void setStrategy(Strategy strategy) {
        this.strategy = strategy;
    }

    /** @return the zone whose instances are preferred while it has a usable one, or null for none (default) */
    public String getPreferZone() {
        return preferZone;
    }

    /** @param preferZone the zone (metadata {@code zone}) whose instances are preferred, or null for none */
    public void setPreferZone(String preferZone) {
        this.preferZone = preferZone;
    }

    /** @return the region whose instances are preferred while it has a usable one, or null for none (default) */
    public String getPreferRegion() {
        return preferRegion;
    }

    /**
     * @param preferRegion the region ({@code ServiceInstance.region()}, stamped by the client that read the instance,
     *                     never its metadata) whose instances are preferred, or null for none; applied before
     *                     {@code prefer-zone}
     */
    public void setPreferRegion(String preferRegion) {
        this.preferRegion = preferRegion;
    }

    /** @return the window over which a new instance's share ramps up, or null for none (default) */
    public Duration getSlowStart() {
        return slowStart;
    }

    /** @param slowStart the ramp-up window (weighted strategies only; positive, at most a day), or null for none */
    public void setSlowStart(Duration slowStart) {
        this.slowStart = slowStart;
    }

    /** @return the seed of every random decision, or null for unseeded (default) */
    public Long getSeed() {
        return seed;
    }

    /** @param seed makes every choice reproducible (tests, reproductions; not for production), or null */
    public void setSeed(Long seed) {
        this.seed = seed;
    }

    /** @return metadata entries an instance must have all of to be chosen (default none) */
    public Map<String, String> getMetadata() {
        return metadata;
    }

    /** @param metadata metadata entries an instance must have all of to be chosen */
    public void setMetadata(Map<String, String> metadata) {
        this.metadata = metadata;
    }

    /** @return the canary split (bound in place: {@code canary.*}) */
    public Canary getCanary() {
        return canary;
    }

    /** @return what differs per service, by service id (default none) */
    public Map<String, Service> getServices() {
        return services;
    }

    /** @param services what differs per service, by service id */
    public void setServices(Map<String, Service> services) {
        this.services = services;
    }

    /**
     * {@code canary.*}: a share of the requests goes to the canary instances (metadata {@code canary=true}), the rest
     * to the others; off while neither a percentage nor a hint header is set.
     */
    public static class Canary {
        private Double percent;
        private String hintHeader;
        private String hintValue = CanaryRouting.DEFAULT_VALUE;

        /** @return the share of requests, 0-100, sent to canaries, or null for none (default) */
        public Double getPercent() {
            return percent;
        }

        /** @param percent the share of requests, 0-100 (resolution 0.01), sent to canaries */
        public void setPercent(Double percent) {
            this.percent = percent;
        }

        /** @return the request header that asks for a canary, or null for none (default) */
        public String getHintHeader() {
            return hintHeader;
        }

        /** @param hintHeader a request header (e.g. {@code X-Canary}) that sends its request to the canaries */
        public void setHintHeader(String hintHeader) {
            this.hintHeader = hintHeader;
        }

        /** @return the hint header's value that asks for a canary (default {@code true}) */
        public String getHintValue() {
            return hintValue;
        }

        /** @param hintValue the hint header's value that asks for a canary */
        public void setHintValue(String hintValue) {
            this.hintValue = hintValue;
        }
    }

    /** {@code services.<id>.*}: what differs for one service; what is unset here is the global value. */
    public static class Service {
        private Strategy strategy;
        private String preferZone;
        private String preferRegion;
        private Duration slowStart;
        private Map<String, String> metadata = new LinkedHashMap<>();

        /** @return the service's strategy, or null for the global one */
        public Strategy getStrategy() {
            return strategy;
        }

        /** @param strategy the service's strategy, or null for the global one */
        public void setStrategy(Strategy strategy) {
            this.strategy = strategy;
        }

        /** @return the service's preferred zone, or null for the global one */
        public String getPreferZone() {
            return preferZone;
        }

        /** @param preferZone the service's preferred zone, or null for the global one */
        public void setPreferZone(String preferZone) {
            this.preferZone = preferZone;
        }

        /** @return the service's preferred region, or null for the global one */
        public String getPreferRegion() {
            return preferRegion;
        }

        /** @param preferRegion the service's preferred region, or null for the global one */
        public void setPreferRegion(String preferRegion) {
            this.preferRegion = preferRegion;
        }

        /** @return the service's slow-start window, or null for the global one */
        public Duration getSlowStart() {
            return slowStart;
        }

        /** @param slowStart the service's slow-start window, or null for the global one */
        public void setSlowStart(Duration slowStart) {
            this.slowStart = slowStart;
        }

        /** @return metadata entries added to the global ones for this service (a key here wins) */
        public Map<String, String> getMetadata() {
            return metadata;
        }

        /** @param metadata metadata entries added to the global ones for this service (a key here wins) */
        public void setMetadata(Map<String, String> metadata) {
            this.metadata = metadata;
        }
    }
}
