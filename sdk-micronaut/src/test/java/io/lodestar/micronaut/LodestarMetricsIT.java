package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LodestarMetricsIT {
    private final String namespace = Contexts.namespace();

    @Test
    void withAMeterRegistryBeanTheClientPublishesItsMetricsThere() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of("test.meter-registry", "true"))) {
            context.getBean(LodestarClient.class).discovery().getInstances("orders");

            assertThat(context.getBean(MeterRegistry.class).find("lodestar.view.reads").meters()).isNotEmpty();
        }
    }

    @Test
    void metricsEnabledFalseKeepsThemOutOfTheRegistry() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of(
                "test.meter-registry", "true", "lodestar.metrics.enabled", "false"))) {
            context.getBean(LodestarClient.class).discovery().getInstances("orders");

            assertThat(context.getBean(MeterRegistry.class).find("lodestar.view.reads").meters()).isEmpty();
            assertThat(context.getBeansOfType(LodestarBuilderCustomizer.class)).isEmpty();
        }
    }

    @Test
    void withoutARegistryNoCustomizerIsThere() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            assertThat(context.getBeansOfType(LodestarBuilderCustomizer.class)).isEmpty();
        }
    }
}
