package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.context.annotation.Bean;

/**
 * Lodestar's balancers behind {@code @LoadBalanced} {@code RestClient}s and {@code RestTemplate}s, as Spring Cloud's
 * {@link LoadBalancerClient}: Spring Cloud Commons' own auto-configuration wires the interceptors once this bean is
 * there (hence "before" it). Off with {@code lodestar.loadbalancer.enabled=false}.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class, beforeName = {
        "org.springframework.cloud.client.loadbalancer.LoadBalancerAutoConfiguration",
        "org.springframework.cloud.loadbalancer.config.BlockingLoadBalancerClientAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "lodestar.loadbalancer.enabled", matchIfMissing = true)
@ConditionalOnBean(LodestarClient.class)
public class LodestarLoadBalancerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LoadBalancerClient lodestarLoadBalancerClient(LodestarClient lodestar, LodestarProperties properties) {
        return new LodestarLoadBalancerClient(lodestar, properties.getLoadbalancer());
    }
}
