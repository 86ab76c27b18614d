package io.lodestar.micronaut;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** Stands in for micronaut-micrometer's registry, only in the contexts that ask for it. */
@Factory
@Requires(property = "test.meter-registry", value = "true")
class TestMeterRegistryFactory {
    @Singleton
    MeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }
}
