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

/**
 * The actuator side: the {@code lodestar} health indicator, when Boot's health support is on the class path (off with
 * {@code management.health.lodestar.enabled=false}), and the read-only {@code /actuator/lodestar} endpoint, when the
 * actuator is there and the endpoint is exposed.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class)
@ConditionalOnBean(LodestarClient.class)
public class LodestarHealthAutoConfiguration {

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
