package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code spring.config.import} given on the command line (or as {@code SPRING_CONFIG_IMPORT}) is resolved before the
 * application's own config files; the {@code lodestar.*} settings in them still apply to it.
 */
class LodestarConfigImportFromCommandLineIT {
    private static final String NAMESPACE = "spring-config-cli";

    @Test
    void aCommandLineImportUsesTheLodestarSettingsOfTheApplicationsConfigFile() {
        try (LodestarClient admin = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
                .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build())) {
            admin.config().set("cli/limits", "limits.max-requests=42", ConfigFormat.PROPERTIES);
        }

        try (ConfigurableApplicationContext app = application().properties("test.redis-uri="
                + TestRedis.standalone().uri()).run("--spring.config.name=lodestar-cli-import",
                "--spring.config.import=lodestar:cli/limits")) {
            assertThat(app.getEnvironment().getProperty("limits.max-requests")).isEqualTo("42");
            assertThat(app.getBean(LodestarClient.class).namespace().name()).isEqualTo(NAMESPACE);
        }
    }

    @Test
    void aCommandLineImportWithoutARedisUriAnywhereFailsSayingWhereToSetIt() {
        assertThatThrownBy(() -> application().run("--spring.config.name=no-such-config-file",
                "--spring.config.import=lodestar:cli/limits"))
                .hasStackTraceContaining("lodestar:cli/limits")
                .hasStackTraceContaining("lodestar.redis-uri")
                .hasStackTraceContaining("namespace 'default'")
                .hasStackTraceContaining("LODESTAR_REDIS_URI");
    }

    private static SpringApplicationBuilder application() {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
