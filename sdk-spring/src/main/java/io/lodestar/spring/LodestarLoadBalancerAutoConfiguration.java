package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClientsProperties;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * Lodestar's balancers behind {@code @LoadBalanced} {@code RestClient}s and {@code RestTemplate}s, as Spring Cloud's
 * {@link LoadBalancerClient}, and behind {@code @LoadBalanced} {@code WebClient}s, as its
 * {@link ReactiveLoadBalancer.Factory}: Spring Cloud Commons' own auto-configurations wire the interceptors and
 * filters once these beans are there (hence "before" them). Off with {@code lodestar.loadbalancer.enabled=false}.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class, beforeName = {
        "org.springframework.cloud.client.loadbalancer.LoadBalancerAutoConfiguration",
        "org.springframework.cloud.client.loadbalancer.reactive.ReactorLoadBalancerClientAutoConfiguration",
        "org.springframework.cloud.client.loadbalancer.reactive.LoadBalancerBeanPostProcessorAutoConfiguration",
        "org.springframework.cloud.loadbalancer.config.BlockingLoadBalancerClientAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "lodestar.loadbalancer.enabled", matchIfMissing = true)
@ConditionalOnBean(LodestarClient.class)
public class LodestarLoadBalancerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LodestarBalancers lodestarBalancers(LodestarProperties properties) {
        return new LodestarBalancers(properties.getLoadbalancer());
    }

    @Bean
    @ConditionalOnMissingBean
    LoadBalancerClient lodestarLoadBalancerClient(LodestarClient lodestar, LodestarBalancers balancers) {
        return new LodestarLoadBalancerClient(lodestar, balancers);
    }

    /** For {@code @LoadBalanced} {@code WebClient}s: only with Reactor. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Mono.class)
    static class Reactive {
        @Bean
        @ConditionalOnMissingBean
        ReactiveLoadBalancer.Factory<ServiceInstance> lodestarReactiveLoadBalancerFactory(LodestarClient lodestar,
                LodestarBalancers balancers, ObjectProvider<LoadBalancerClientsProperties> properties) {
            return new LodestarReactiveLoadBalancerFactory(lodestar, balancers, properties);
        }
    }
}
