package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.ConditionalOnBlockingDiscoveryEnabled;
import org.springframework.cloud.client.ConditionalOnDiscoveryEnabled;
import org.springframework.cloud.client.ConditionalOnReactiveDiscoveryEnabled;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;

/**
 * Spring Cloud discovery over the local view: a {@link LodestarDiscoveryClient} and, in a WebFlux application (Spring
 * Cloud's condition for reactive discovery), a {@link LodestarReactiveDiscoveryClient}; a {@code HeartbeatEvent}
 * whenever services appear or disappear. Off with {@code lodestar.discovery.enabled=false} or Spring Cloud's own {@code
 * spring.cloud.discovery[.blocking|.reactive].enabled=false}.
 */
@AutoConfiguration(after = LodestarAutoConfiguration.class, beforeName = {
        "org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration",
        "org.springframework.cloud.client.discovery.simple.reactive.SimpleReactiveDiscoveryClientAutoConfiguration"})
@ConditionalOnDiscoveryEnabled
@ConditionalOnBooleanProperty(name = "lodestar.discovery.enabled", matchIfMissing = true)
@ConditionalOnBean(LodestarClient.class)
public class LodestarDiscoveryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LodestarHeartbeatPublisher lodestarHeartbeatPublisher(LodestarClient lodestar,
                                                          ApplicationEventPublisher publisher) {
        return new LodestarHeartbeatPublisher(lodestar, publisher);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBlockingDiscoveryEnabled
    static class Blocking {
        @Bean
        @ConditionalOnMissingBean
        LodestarDiscoveryClient lodestarDiscoveryClient(LodestarClient lodestar) {
            return new LodestarDiscoveryClient(lodestar);
        }
    }

    /** Only with Reactor and WebFlux: an application without them still gets the blocking client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Flux.class)
    @ConditionalOnReactiveDiscoveryEnabled
    static class Reactive {
        @Bean
        @ConditionalOnMissingBean
        LodestarReactiveDiscoveryClient lodestarReactiveDiscoveryClient(LodestarClient lodestar) {
            return new LodestarReactiveDiscoveryClient(lodestar);
        }
    }
}
