package io.lodestar.micronaut;

import io.lodestar.loadbalancer.Strategy;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;

/** The {@code lodestar.loadbalancer.*} properties: how {@code @Client(id = …)} chooses an instance. */
@ConfigurationProperties(LodestarLoadBalancerConfiguration.PREFIX)
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarLoadBalancerConfiguration.ENABLED, notEquals = "false")
public class LodestarLoadBalancerConfiguration {
    /** The prefix of the load-balancer properties. */
    public static final String PREFIX = LodestarConfiguration.PREFIX + ".loadbalancer";
    /** {@code false} leaves Micronaut's own round robin over the discovery client. */
    public static final String ENABLED = PREFIX + ".enabled";

    private Strategy strategy = Strategy.WEIGHTED_RANDOM;
    private @Nullable String zone;
    private @Nullable Long seed;

    /** @return the strategy (default {@code WEIGHTED_RANDOM}) */
    public Strategy getStrategy() {
        return strategy;
    }

    /** @param strategy the strategy */
    public void setStrategy(Strategy strategy) {
        this.strategy = strategy;
    }

    /** @return the preferred zone, or null for none */
    public @Nullable String getZone() {
        return zone;
    }

    /** @param zone instances in this zone (metadata {@code zone}) are preferred while any is up; null for none */
    public void setZone(@Nullable String zone) {
        this.zone = zone;
    }

    /** @return the seed, or null */
    public @Nullable Long getSeed() {
        return seed;
    }

    /** @param seed makes every choice reproducible (tests, reproductions; not for production), or null */
    public void setSeed(@Nullable Long seed) {
        this.seed = seed;
    }
}
