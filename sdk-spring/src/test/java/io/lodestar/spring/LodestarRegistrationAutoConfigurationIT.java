package io.lodestar.spring;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The registration of a non-web application (an explicit port); {@code LodestarRegistrationWebIT} has the web one. */
class LodestarRegistrationAutoConfigurationIT {
    private static final String NAMESPACE = "spring-registration";
    private final LodestarClient observer = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
            .namespace(NAMESPACE).reconcileInterval(Duration.ofHours(1)).build());
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LodestarAutoConfiguration.class,
                    LodestarRegistrationAutoConfiguration.class))
            .withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri(), "lodestar.namespace=" + NAMESPACE,
                    "lodestar.reconcile-interval=1h");

    @AfterEach
    void closeObserver() {
        observer.close();
    }

    @Test
    void registersFromTheRegistrationPropertiesAndDeregistersWhenTheContextCloses() {
        runner.withPropertyValues("spring.application.name=worker", "lodestar.registration.host=10.1.2.3",
                "lodestar.registration.port=9000", "lodestar.registration.weight=250",
                "lodestar.registration.zone=eu-1", "lodestar.registration.metadata.version=7",
                "lodestar.registration.ttl=10s").run(context -> {
                    assertThat(observer.directDiscovery().getInstances("worker")).singleElement()
                            .satisfies(instance -> {
                                assertThat(instance.instanceId()).as("host:port, as in Micronaut")
                                        .isEqualTo("10.1.2.3:9000");
                                assertThat(instance.uri()).hasToString("http://10.1.2.3:9000");
                                assertThat(instance.weight()).isEqualTo(250);
                                assertThat(instance.ttl()).isEqualTo(Duration.ofSeconds(10));
                                assertThat(instance.metadata()).containsEntry("zone", "eu-1")
                                        .containsEntry("version", "7");
                            });
                });

        assertThat(observer.directDiscovery().getInstances("worker")).isEmpty();
    }

    @Test
    void theServiceIdAndInstanceIdPropertiesWinOverTheApplicationName() {
        runner.withPropertyValues("spring.application.name=ignored", "lodestar.registration.service-id=batch",
                "lodestar.registration.instance-id=batch-a", "lodestar.registration.host=10.1.2.4",
                "lodestar.registration.port=9001").run(context ->
                assertThat(observer.directDiscovery().getInstances("batch")).extracting(ServiceInstance::instanceId)
                        .containsExactly("batch-a"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void springCloudsServiceRegistryReadsAndChangesTheStatusOfTheApplicationsRegistration() {
        runner.withPropertyValues("spring.application.name=status", "lodestar.registration.host=10.1.2.7",
                "lodestar.registration.port=9005").run(context -> {
                    ServiceRegistry<Registration> registry = context.getBean(ServiceRegistry.class);
                    Registration registration = context.getBean(Registration.class);
                    assertThat(registration.getInstanceId()).isEqualTo("10.1.2.7:9005");
                    assertThat((String) registry.getStatus(registration)).isEqualTo("UP");

                    registry.setStatus(registration, "OUT_OF_SERVICE");

                    assertThat(observer.directDiscovery().getInstance("status", "10.1.2.7:9005"))
                            .hasValueSatisfying(i -> assertThat(i.status()).isEqualTo(InstanceStatus.OUT_OF_SERVICE));
                    assertThat((String) registry.getStatus(registration)).isEqualTo("OUT_OF_SERVICE");
                    assertThatThrownBy(() -> registry.setStatus(registration, "SLEEPING"))
                            .isInstanceOf(InvalidArgumentException.class)
                            .hasMessageContaining("status must be one of [UP, DOWN, OUT_OF_SERVICE, STARTING")
                            .hasMessageContaining("but was SLEEPING");
                });
    }

    @Test
    void withoutAWebServerOrAPortNothingIsRegistered() {
        runner.withPropertyValues("spring.application.name=quiet").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(LodestarAutoRegistration.class);
            assertThat(observer.directDiscovery().getInstances("quiet")).isEmpty();
        });
    }

    @Test
    void registrationEnabledFalseTurnsItOff() {
        runner.withPropertyValues("spring.application.name=off", "lodestar.registration.port=9002",
                "lodestar.registration.enabled=false").run(context -> {
                    assertThat(context).hasSingleBean(LodestarClient.class);
                    assertThat(context).doesNotHaveBean(LodestarAutoRegistration.class);
                    assertThat(context).doesNotHaveBean(LodestarDeregistration.class);
                    assertThat(observer.directDiscovery().getInstances("off")).isEmpty();
                });
    }

    @Test
    void aBadRegistrationPropertyFailsTheStartNamingIt() {
        runner.withPropertyValues("spring.application.name=bad", "lodestar.registration.host=10.1.2.5",
                "lodestar.registration.port=9003", "lodestar.registration.weight=-1").run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new LodestarFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("lodestar.registration.weight must be ")
                            .contains("but was -1");
                });
    }

    @Test
    void withoutAServiceIdTheFailureNamesTheProperty() {
        runner.withPropertyValues("lodestar.registration.host=10.1.2.6", "lodestar.registration.port=9004")
                .run(context -> {
                    FailureAnalysis analysis = new LodestarFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("lodestar.registration.service-id must be ")
                            .contains("but was null");
                });
    }
}
