package io.lodestar.micronaut;

import io.lodestar.core.ClientClosedException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.StartupMode;
import io.lodestar.core.model.ServiceInstance;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LodestarFactoryIT {
    private final String namespace = Contexts.namespace();

    @Test
    void theClientBeanWorksOnTheConfiguredRedisAndNamespace() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of())) {
            LodestarClient client = context.getBean(LodestarClient.class);

            client.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080)
                    .build());

            assertThat(client.namespace().name()).isEqualTo(namespace);
            assertThat(client.directDiscovery().getInstances("orders"))
                    .extracting(ServiceInstance::instanceId).containsExactly("orders-1");
        }
    }

    @Test
    void everyInheritedSettingBindsFromItsKebabCaseProperty() {
        try (ApplicationContext context = Contexts.run(namespace, Map.of(
                "lodestar.command-timeout", "2s",
                "lodestar.sweep-interval", "3s",
                "lodestar.config-history-limit", "7",
                "lodestar.view-topic-limit", "500",
                "lodestar.client-name", "billing",
                "lodestar.deregister-on-close", "false",
                "lodestar.startup-mode", "OFFLINE",
                "lodestar.preload-services", List.of("orders", "billing")))) {
            LodestarConfiguration configuration = context.getBean(LodestarConfiguration.class);

            assertThat(configuration.getNamespace()).isEqualTo(namespace);
            assertThat(configuration.getCommandTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(configuration.getSweepInterval()).isEqualTo(Duration.ofSeconds(3));
            assertThat(configuration.getReconcileInterval()).isEqualTo(Duration.ofHours(12));
            assertThat(configuration.getConfigHistoryLimit()).isEqualTo(7);
            assertThat(configuration.getViewTopicLimit()).isEqualTo(500);
            assertThat(configuration.getClientName()).isEqualTo("billing");
            assertThat(configuration.isDeregisterOnClose()).isFalse();
            assertThat(configuration.getStartupMode()).isEqualTo(StartupMode.OFFLINE);
            assertThat(configuration.getPreloadServices()).containsExactly("orders", "billing");
        }
    }

    @Test
    void closingTheContextClosesTheClient() {
        ApplicationContext context = Contexts.run(namespace, Map.of());
        LodestarClient client = context.getBean(LodestarClient.class);

        context.close();

        assertThatThrownBy(() -> client.discovery().getInstances("orders"))
                .isInstanceOf(ClientClosedException.class);
    }

    @Test
    void badSettingsFailAtStartupNamingTheProperty() {
        assertThatThrownBy(() -> Contexts.run(namespace, Map.of(
                "lodestar.redis-uri", "localhost:6380",
                "lodestar.command-timeout", "1ms")))
                .hasRootCauseInstanceOf(InvalidArgumentException.class)
                .satisfies(e -> assertThat(causeOfType(e, ConfigurationException.class).getMessage())
                        .contains("lodestar.redis-uri must be a URI of the form redis://")
                        .contains("but was 'localhost:6380'")
                        .contains("lodestar.command-timeout must be between"));
    }

    @Test
    void enabledFalseRemovesEveryLodestarBean() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("lodestar.enabled", "false"))) {
            assertThat(context.findBean(LodestarClient.class)).isEmpty();
            assertThat(context.findBean(LodestarConfiguration.class)).isEmpty();
        }
    }

    private static Throwable causeOfType(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return t;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + e, e);
    }
}
