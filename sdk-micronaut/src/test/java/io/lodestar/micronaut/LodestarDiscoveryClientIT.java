package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.micronaut.context.ApplicationContext;
import io.micronaut.discovery.DiscoveryClient;
import io.micronaut.health.HealthStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Micronaut's discovery, as {@code @Client(id = …)} uses it (the composite {@link DiscoveryClient}), answers from
 * Lodestar: another application's registrations show up with their metadata, and only while they are UP.
 */
@SuppressWarnings("checkstyle:FullyQualifiedName") // Micronaut's ServiceInstance beside ours
class LodestarDiscoveryClientIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final String namespace = Contexts.namespace();
    private final LodestarClient other = Contexts.client(namespace);

    @AfterEach
    void closeOther() {
        other.close();
    }

    @Test
    void anotherApplicationsInstanceReachesMicronautWithItsMetadata() {
        other.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8443)
                .secure(true).metadata(Map.of("zone", "eu-1", "region", "eu", "version", "2")).build());

        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            DiscoveryClient discovery = context.getBean(DiscoveryClient.class);

            List<io.micronaut.discovery.ServiceInstance> instances =
                    Reactive.single(discovery.getInstances("orders"), WAIT);

            assertThat(instances).singleElement().satisfies(instance -> {
                assertThat(instance.getId()).isEqualTo("orders");
                assertThat(instance.getInstanceId()).contains("orders-1");
                assertThat(instance.getURI()).isEqualTo(URI.create("https://10.0.0.7:8443"));
                assertThat(instance.isSecure()).isTrue();
                assertThat(instance.getHealthStatus()).isEqualTo(HealthStatus.UP);
                assertThat(instance.getZone()).contains("eu-1");
                assertThat(instance.getRegion()).contains("eu");
                assertThat(instance.getMetadata().get("version", String.class)).contains("2");
            });
        }
    }

    @Test
    void anInstanceLeavesTheListWhenItIsNoLongerUp() {
        other.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());
        other.registry().register(ServiceInstance.builder("orders", "orders-2").host("10.0.0.8").port(8080).build());
        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            DiscoveryClient discovery = context.getBean(DiscoveryClient.class);
            assertThat(instanceIds(discovery)).containsExactlyInAnyOrder("orders-1", "orders-2");

            other.registry().setStatus("orders", "orders-2", InstanceStatus.OUT_OF_SERVICE);

            await().atMost(WAIT).untilAsserted(() -> assertThat(instanceIds(discovery)).containsExactly("orders-1"));
        }
    }

    @Test
    void anUnchangedServiceIsMappedOnceNotOnEveryRequest() {
        other.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());
        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            DiscoveryClient lodestar = context.getBeansOfType(DiscoveryClient.class).stream()
                    .filter(LodestarDiscoveryClient.class::isInstance).findFirst().orElseThrow();
            List<io.micronaut.discovery.ServiceInstance> first = Reactive.single(lodestar.getInstances("orders"), WAIT);

            List<io.micronaut.discovery.ServiceInstance> second = Reactive.single(lodestar.getInstances("orders"), WAIT);
            other.registry().register(ServiceInstance.builder("orders", "orders-2").host("10.0.0.8").port(8080).build());

            assertThat(second).isSameAs(first);
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(Reactive.single(lodestar.getInstances("orders"), WAIT)).hasSize(2));
        }
    }

    @Test
    void theServiceIdsAreTheRegisteredServices() {
        other.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());
        other.registry().register(ServiceInstance.builder("billing", "billing-1").host("10.0.0.9").port(8080).build());

        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            DiscoveryClient discovery = context.getBean(DiscoveryClient.class);

            assertThat(Reactive.single(discovery.getServiceIds(), WAIT)).containsExactly("billing", "orders");
        }
    }

    @Test
    void discoveryEnabledFalseRemovesOnlyTheDiscoveryClient() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of("lodestar.discovery.enabled", "false"))) {
            assertThat(context.getBeansOfType(DiscoveryClient.class))
                    .noneMatch(LodestarDiscoveryClient.class::isInstance);
            assertThat(context.findBean(LodestarClient.class)).isPresent();
        }
    }

    @Test
    void withLodestarOnTheClasspathTheLodestarDiscoveryClientIsThere() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            assertThat(context.getBeansOfType(DiscoveryClient.class))
                    .anyMatch(LodestarDiscoveryClient.class::isInstance);
        }
    }

    private static List<String> instanceIds(DiscoveryClient discovery) {
        return Reactive.single(discovery.getInstances("orders"), WAIT).stream()
                .map(instance -> instance.getInstanceId().orElseThrow()).toList();
    }
}
