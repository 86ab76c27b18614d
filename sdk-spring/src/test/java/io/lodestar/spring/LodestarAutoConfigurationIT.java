package io.lodestar.spring;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lodestar.core.ClientClosedException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LodestarAutoConfigurationIT {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LodestarAutoConfiguration.class))
            .withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri(),
                    "lodestar.namespace=spring-core", "lodestar.reconcile-interval=1h");

    @Test
    void createsAClientFromTheLodestarProperties() {
        runner.withPropertyValues("lodestar.namespace=spring-props", "lodestar.command-timeout=2s").run(context -> {
            assertThat(context).hasSingleBean(LodestarClient.class);
            LodestarClient client = context.getBean(LodestarClient.class);
            assertThat(client.namespace().name()).isEqualTo("spring-props");
            assertThat(context.getBean(LodestarProperties.class).getCommandTimeout()).hasSeconds(2);
            assertThat(client.health().nodes()).isNotEmpty().allMatch(node -> node.connected());
        });
    }

    @Test
    void closingTheContextClosesTheClient() {
        AtomicReference<LodestarClient> client = new AtomicReference<>();

        runner.run(context -> client.set(context.getBean(LodestarClient.class)));

        assertThatThrownBy(() -> client.get().discovery().getInstances("orders"))
                .isInstanceOf(ClientClosedException.class);
    }

    @Test
    void aClientOfTheUserWins() {
        runner.withUserConfiguration(UserClient.class).run(context -> {
            assertThat(context).hasSingleBean(LodestarClient.class);
            assertThat(context.getBean(LodestarClient.class).namespace().name()).isEqualTo("spring-user");
        });
    }

    @Test
    void lodestarEnabledFalseTurnsEverythingOff() {
        runner.withPropertyValues("lodestar.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(LodestarClient.class);
            assertThat(context).doesNotHaveBean(LodestarProperties.class);
        });
    }

    @Test
    void aBadPropertyFailsTheStartWithAReportNamingPropertyValueAndRule() {
        runner.withPropertyValues("lodestar.command-timeout=1ms", "lodestar.namespace=bad namespace")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new LodestarFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("lodestar.command-timeout must be ")
                            .contains("but was PT0.001S")
                            .contains("lodestar.namespace must be ");
                    assertThat(analysis.getAction()).contains("lodestar.namespace, lodestar.command-timeout");
                });
    }

    @Test
    void withFailFastAnUnreachableRedisFailsTheStartWithAReportNamingTheUriPropertyAndTheWayOut() throws IOException {
        runner.withPropertyValues("lodestar.redis-uri=redis://127.0.0.1:" + closedPort(),
                "lodestar.command-timeout=500ms", "lodestar.fail-fast=true").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new LodestarUnavailableFailureAnalyzer()
                            .analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).startsWith("Lodestar could not reach Redis");
                    assertThat(analysis.getAction()).contains("lodestar.redis-uri")
                            .contains("lodestar.fail-fast");
                });
    }

    @Test
    void byDefaultAnUnreachableRedisStartsTheClientOffline() throws IOException {
        runner.withPropertyValues("lodestar.redis-uri=redis://127.0.0.1:" + closedPort(),
                "lodestar.command-timeout=500ms").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LodestarClient.class).health().healthy()).isFalse();
                });
    }

    @Test
    void theStartupModeFollowsFailFastUnlessSetItself() {
        runner.withPropertyValues("lodestar.fail-fast=true").run(context ->
                assertThat(context.getBean(LodestarProperties.class).toOptions().startupMode())
                        .isEqualTo(StartupMode.FAIL_FAST));
        runner.run(context -> assertThat(context.getBean(LodestarProperties.class).toOptions().startupMode())
                .isEqualTo(StartupMode.OFFLINE));
        runner.withPropertyValues("lodestar.fail-fast=true", "lodestar.startup-mode=offline").run(context ->
                assertThat(context.getBean(LodestarProperties.class).toOptions().startupMode())
                        .isEqualTo(StartupMode.OFFLINE));
        runner.withPropertyValues("lodestar.startup-mode=fail-fast").run(context ->
                assertThat(context.getBean(LodestarProperties.class).toOptions().startupMode())
                        .isEqualTo(StartupMode.FAIL_FAST));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void sharesTheApplicationsLettuceResourcesWithoutClosingThem() {
        runner.withUserConfiguration(SharedResources.class).run(context -> {
            LodestarClient client = context.getBean(LodestarClient.class);
            client.registry().register(ServiceInstance.builder("orders", "o-1").host("10.0.0.1").port(80).build());
            client.close();

            assertThat(context.getBean(ClientResources.class).eventExecutorGroup().isShuttingDown()).isFalse();
        });
    }

    @Test
    void customizersSeeTheBuilderBeforeTheClientConnects() {
        runner.withUserConfiguration(CountingCustomizer.class).run(context -> {
            assertThat(context).hasSingleBean(LodestarClient.class);
            assertThat(context.getBean(CountingCustomizer.class).calls).isEqualTo(1);
        });
    }

    @Test
    void publishesTheClientsMetricsToTheApplicationsMeterRegistry() {
        runner.withPropertyValues("lodestar.namespace=spring-metrics").withUserConfiguration(Meters.class)
                .run(context -> {
                    context.getBean(LodestarClient.class).discovery().getInstances("orders");

                    assertThat(context.getBean(MeterRegistry.class).find("lodestar.view.reads")
                            .tag("namespace", "spring-metrics").meters()).isNotEmpty();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Meters {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserClient {
        @Bean
        LodestarClient userClient() {
            return RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
                    .namespace("spring-user").build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SharedResources {
        // destroyMethod "": the test looks at the resources after the client closed, before the context does
        @Bean(destroyMethod = "")
        ClientResources applicationResources() {
            return DefaultClientResources.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CountingCustomizer implements LodestarClientBuilderCustomizer {
        int calls;

        @Override
        public void customize(RedisLodestar.Builder builder) {
            calls++;
        }
    }
}
