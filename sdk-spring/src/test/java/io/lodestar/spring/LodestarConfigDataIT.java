package io.lodestar.spring;

import io.lodestar.core.ClientClosedException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.config.ConfigDataResourceNotFoundException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code spring.config.import=lodestar:…}: config entries become property sources, read through one client. */
class LodestarConfigDataIT {
    private static final String NAMESPACE = "spring-config";
    private final LodestarClient admin = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
            .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build());

    @AfterEach
    void closeAdmin() {
        admin.close();
    }

    @Test
    void importedEntriesBecomePropertySourcesInTheImportedOrder() {
        admin.config().set("orders/limits", "limits.max-requests=100\nlimits.owner=orders", ConfigFormat.PROPERTIES);
        admin.config().set("shared/logging", "limits:\n  owner: shared\nreport:\n  level: debug", ConfigFormat.YAML);
        admin.config().set("shared/flags", "{\"flags\": {\"beta\": true}}", ConfigFormat.JSON);

        try (ConfigurableApplicationContext app = start(
                "lodestar:orders/limits,lodestar:shared/logging,lodestar:shared/flags,optional:lodestar:absent")) {
            assertThat(app.getEnvironment().getProperty("limits.max-requests")).isEqualTo("100");
            assertThat(app.getEnvironment().getProperty("report.level")).isEqualTo("debug");
            assertThat(app.getEnvironment().getProperty("flags.beta")).isEqualTo("true");
            // a later import wins over an earlier one, as with files
            assertThat(app.getEnvironment().getProperty("limits.owner")).isEqualTo("shared");
        }
    }

    @Test
    void theImportsClientBecomesTheApplicationsClient() {
        admin.config().set("orders/one-client", "one.client=true", ConfigFormat.PROPERTIES);
        AtomicReference<LodestarClient> importing = new AtomicReference<>();

        try (ConfigurableApplicationContext app = builder("lodestar:orders/one-client")
                .addBootstrapRegistryInitializer(registry -> registry.addCloseListener(
                        event -> importing.set(event.getBootstrapContext().get(LodestarClient.class))))
                .run()) {
            assertThat(app.getBean(LodestarClient.class)).isSameAs(importing.get());
        }
        assertThatThrownBy(() -> importing.get().config().get("orders/one-client"))
                .as("closed with the context").isInstanceOf(ClientClosedException.class);
    }

    @Test
    void theImportsClientPublishesItsMetersToTheApplicationsRegistryOnceItExists() {
        admin.config().set("orders/metered", "metered=true", ConfigFormat.PROPERTIES);

        try (ConfigurableApplicationContext app = builder("lodestar:orders/metered").sources(Meters.class).run()) {
            MeterRegistry registry = app.getBean(MeterRegistry.class);

            assertThat(registry.find("lodestar.view.topics").tags("namespace", NAMESPACE, "view", "config").gauge())
                    .as("the config view's gauge of the one client").isNotNull()
                    .satisfies(topics -> assertThat(topics.value()).isEqualTo(1.0));
        }
    }

    @Test
    void aMissingEntryFailsTheStartUnlessOptional() {
        assertThatThrownBy(() -> start("lodestar:nowhere/to-be-found"))
                .isInstanceOf(ConfigDataResourceNotFoundException.class).hasMessageContaining("nowhere/to-be-found");
    }

    private ConfigurableApplicationContext start(String imports) {
        return builder(imports).run();
    }

    private static SpringApplicationBuilder builder(String imports) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(
                "spring.config.import=" + imports, "lodestar.redis-uri=" + TestRedis.standalone().uri(),
                "lodestar.namespace=" + NAMESPACE, "lodestar.reconcile-interval=1h",
                "lodestar.registration.enabled=false");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @Configuration(proxyBeanMethods = false)
    static class Meters {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
