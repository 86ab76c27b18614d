package io.lodestar.micronaut;

import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * The metrics concern: when the application has a Micrometer {@link MeterRegistry} bean (micronaut-micrometer), the
 * client publishes its metrics there. Its own factory, so that without Micrometer no bean refers to it.
 */
@Factory
@Requires(classes = MeterRegistry.class)
@Requires(beans = MeterRegistry.class)
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarMetricsFactory.ENABLED, notEquals = "false")
class LodestarMetricsFactory {
    /** {@code false}: no Lodestar metrics even with a registry. */
    static final String ENABLED = LodestarConfiguration.PREFIX + ".metrics.enabled";

    @Singleton
    LodestarBuilderCustomizer lodestarMetrics(MeterRegistry registry) {
        return builder -> builder.meterRegistry(registry);
    }
}
