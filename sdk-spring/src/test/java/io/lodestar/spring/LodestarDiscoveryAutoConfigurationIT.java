package io.lodestar.spring;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.discovery.ReactiveDiscoveryClient;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SuppressWarnings("checkstyle:FullyQualifiedName") // Spring Cloud's ServiceInstance beside ours
class LodestarDiscoveryAutoConfigurationIT {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LodestarAutoConfiguration.class,
                    LodestarDiscoveryAutoConfiguration.class))
            .withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri(),
                    "lodestar.reconcile-interval=1h");

    @Test
    void theDiscoveryClientListsTheUpInstancesOfTheView() {
        runner.withPropertyValues("lodestar.namespace=spring-discovery-blocking").run(context -> {
            LodestarClient lodestar = context.getBean(LodestarClient.class);
            lodestar.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.1").port(8443)
                    .secure(true).metadata("zone", "eu-1").metadata("version", "2").build());
            lodestar.registry().register(ServiceInstance.builder("orders", "orders-2").host("10.0.0.2").port(8080)
                    .status(InstanceStatus.OUT_OF_SERVICE).build());

            List<org.springframework.cloud.client.ServiceInstance> instances =
                    context.getBean(DiscoveryClient.class).getInstances("orders");

            assertThat(instances).singleElement().satisfies(instance -> {
                assertThat(instance.getServiceId()).isEqualTo("orders");
                assertThat(instance.getInstanceId()).isEqualTo("orders-1");
                assertThat(instance.getHost()).isEqualTo("10.0.0.1");
                assertThat(instance.getPort()).isEqualTo(8443);
                assertThat(instance.isSecure()).isTrue();
                assertThat(instance.getScheme()).isEqualTo("https");
                assertThat(instance.getUri()).isEqualTo(URI.create("https://10.0.0.1:8443"));
                assertThat(instance.getMetadata()).containsEntry("zone", "eu-1").containsEntry("version", "2");
            });
            assertThat(context.getBean(DiscoveryClient.class).getServices()).containsExactly("orders");
        });
    }

    @Test
    void theReactiveClientEmitsTheSameInstances() {
        runner.withPropertyValues("lodestar.namespace=spring-discovery-reactive").run(context -> {
            LodestarClient lodestar = context.getBean(LodestarClient.class);
            lodestar.registry().register(ServiceInstance.builder("billing", "b-1").host("10.0.0.3").port(80).build());
            lodestar.registry().register(ServiceInstance.builder("billing", "b-2").host("10.0.0.4").port(80)
                    .status(InstanceStatus.DOWN).build());
            ReactiveDiscoveryClient reactive = context.getBean(ReactiveDiscoveryClient.class);

            List<org.springframework.cloud.client.ServiceInstance> instances =
                    reactive.getInstances("billing").collectList().block(Duration.ofSeconds(5));
            List<String> services = reactive.getServices().collectList().block(Duration.ofSeconds(5));

            assertThat(instances).extracting(org.springframework.cloud.client.ServiceInstance::getInstanceId)
                    .containsExactly("b-1");
            assertThat(services).containsExactly("billing");
        });
    }

    @Test
    void theReactiveClientNeverLoadsOnTheSubscribingThread() {
        try (RedisServer redis = TestRedis.startStandalone()) {
            runner.withPropertyValues("lodestar.redis-uri=" + redis.uri(), "lodestar.namespace=spring-discovery-thread")
                    .run(context -> {
                        Thread caller = Thread.currentThread();
                        CompletableFuture<Thread> emittedOn = new CompletableFuture<>();
                        // every command waits a second, so the load cannot be done when subscribe returns (without
                        // the pause a fast load may complete first, and Reactor then emits on the caller: a race)
                        pauseClients(redis, Duration.ofSeconds(1));

                        context.getBean(ReactiveDiscoveryClient.class).getInstances("not-loaded-yet").collectList()
                                .subscribe(list -> emittedOn.complete(Thread.currentThread()),
                                        emittedOn::completeExceptionally);

                        assertThat(emittedOn).as("subscribe returned without waiting for the load").isNotDone();
                        assertThat(emittedOn.get(5, TimeUnit.SECONDS)).isNotSameAs(caller);
                    });
        }
    }

    private static void pauseClients(RedisServer redis, Duration pause) {
        RedisClient admin = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            connection.sync().clientPause(pause.toMillis());
        } finally {
            admin.shutdown();
        }
    }

    @Test
    void aNewServicePublishesAHeartbeatWithTheServices() {
        runner.withPropertyValues("lodestar.namespace=spring-discovery-heartbeat")
                .withUserConfiguration(Heartbeats.class).run(context -> {
                    context.getBean(LodestarClient.class).registry().register(
                            ServiceInstance.builder("payments", "p-1").host("10.0.0.5").port(80).build());

                    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                            assertThat(context.getBean(Heartbeats.class).values).contains(Set.of("payments")));
                });
    }

    @Test
    void aDiscoveryClientOfTheUserWins() {
        runner.withPropertyValues("lodestar.namespace=spring-discovery-user").withUserConfiguration(UserClients.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(LodestarDiscoveryClient.class);
                    assertThat(context.getBean(LodestarDiscoveryClient.class))
                            .isSameAs(context.getBean("userDiscoveryClient"));
                });
    }

    @Test
    void lodestarDiscoveryEnabledFalseTurnsBothClientsOff() {
        runner.withPropertyValues("lodestar.namespace=spring-discovery-off", "lodestar.discovery.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(LodestarClient.class);
                    assertThat(context).doesNotHaveBean(DiscoveryClient.class);
                    assertThat(context).doesNotHaveBean(ReactiveDiscoveryClient.class);
                });
    }

    @Test
    void springCloudsReactiveSwitchTurnsOnlyTheReactiveClientOff() {
        runner.withPropertyValues("lodestar.namespace=spring-discovery-blocking-only",
                "spring.cloud.discovery.reactive.enabled=false").run(context -> {
                    assertThat(context).hasSingleBean(DiscoveryClient.class);
                    assertThat(context).doesNotHaveBean(ReactiveDiscoveryClient.class);
                });
    }

    @Test
    void withoutWebFluxOnlyTheBlockingClientIsThere() {
        runner.withPropertyValues("lodestar.namespace=spring-discovery-no-webflux")
                .withClassLoader(new FilteredClassLoader("org.springframework.web.reactive")).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(DiscoveryClient.class);
                    assertThat(context).doesNotHaveBean(ReactiveDiscoveryClient.class);
                });
    }

    @Test
    void withoutAClientThereIsNoDiscovery() {
        runner.withPropertyValues("lodestar.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DiscoveryClient.class);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Heartbeats implements ApplicationListener<HeartbeatEvent> {
        final List<Object> values = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(HeartbeatEvent event) {
            values.add(event.getValue());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserClients {
        @Bean
        LodestarDiscoveryClient userDiscoveryClient(LodestarClient lodestar) {
            return new LodestarDiscoveryClient(lodestar);
        }
    }
}
