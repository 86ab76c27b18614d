package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code lodestar} health indicator, when Boot's health support is on the class path. Off with
 * {@code management.health.lodestar.enabled=false}.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LodestarClient.class)
public class LodestarHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "lodestarHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("lodestar")
    HealthIndicator lodestarHealthIndicator(LodestarClient lodestar) {
        return new LodestarHealthIndicator(lodestar);
    }
}
