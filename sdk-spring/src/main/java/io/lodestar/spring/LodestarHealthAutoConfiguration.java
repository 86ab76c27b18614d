package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The actuator side: the {@code lodestar} health indicator, when Boot's health support is on the class path (off with
 * {@code management.health.lodestar.enabled=false}), a member of the {@code readiness} probe group (not of
 * {@code liveness}), and the read-only {@code /actuator/lodestar} endpoint, when the
 * actuator is there and the endpoint is exposed.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class,
        afterName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration")
@ConditionalOnBean(LodestarClient.class)
public class LodestarHealthAutoConfiguration {
    /** The indicator's name in {@code /actuator/health} and in health groups. */
    static final String INDICATOR = "lodestar";

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "lodestarHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("lodestar")
        HealthIndicator lodestarHealthIndicator(LodestarClient lodestar) {
            return new LodestarHealthIndicator(lodestar);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
    static class Probes {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnEnabledHealthIndicator("lodestar")
        LodestarReadinessGroup lodestarReadinessGroup(Environment environment) {
            return new LodestarReadinessGroup(environment);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Actuator {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        LodestarEndpoint lodestarEndpoint(LodestarClient lodestar) {
            return new LodestarEndpoint(lodestar);
        }
    }
}
