package io.lodestar.spring;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.loadbalancer.DefaultRequest;
import org.springframework.cloud.client.loadbalancer.HttpRequestLoadBalancerRequest;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.client.loadbalancer.RequestData;
import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpRequest;
import org.springframework.mock.http.client.MockClientHttpRequest;
import reactor.core.publisher.Mono;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class LodestarLoadBalancerAutoConfigurationIT {
    /** Chi-square with one degree of freedom at p = 0.001. */
    static final double CHI_SQUARE_CRITICAL = 10.83;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LodestarAutoConfiguration.class,
                    LodestarLoadBalancerAutoConfiguration.class))
            .withPropertyValues("lodestar.redis-uri=" + TestRedis.standalone().uri(),
                    "lodestar.reconcile-interval=1h", "lodestar.loadbalancer.seed=42");

    @Test
    void choosesUpInstancesInProportionToTheirWeights() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-weights").run(context -> {
            LodestarClient lodestar = context.getBean(LodestarClient.class);
            register(lodestar, "a", 100, InstanceStatus.UP);
            register(lodestar, "b", 300, InstanceStatus.UP);
            register(lodestar, "c", 600, InstanceStatus.OUT_OF_SERVICE);
            LoadBalancerClient balancer = context.getBean(LoadBalancerClient.class);

            Map<String, Integer> counts = new TreeMap<>();
            for (int i = 0; i < 1000; i++) {
                counts.merge(balancer.choose("orders").getInstanceId(), 1, Integer::sum);
            }

            assertThat(counts).containsOnlyKeys("a", "b");
            assertThat(chiSquare(counts.get("a"), 250, counts.get("b"), 750)).isLessThan(CHI_SQUARE_CRITICAL);
        });
    }

    @Test
    void theZonePropertyPrefersThatZone() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-zone", "lodestar.loadbalancer.prefer-zone=eu-2")
                .run(context -> {
                    LodestarClient lodestar = context.getBean(LodestarClient.class);
                    lodestar.registry().register(instance("a", 100, InstanceStatus.UP).metadata("zone", "eu-1")
                            .build());
                    lodestar.registry().register(instance("b", 1, InstanceStatus.UP).metadata("zone", "eu-2")
                            .build());

                    for (int i = 0; i < 50; i++) {
                        assertThat(context.getBean(LoadBalancerClient.class).choose("orders").getInstanceId())
                                .isEqualTo("b");
                    }
                });
    }

    @Test
    void thePreferRegionPropertyPrefersThatRegionOverTheInstancesAFailoverAdds() {
        // given east at home with one instance and west, a remote region, with a heavier one; a failover threshold
        // of 2 adds west's instances to every read while east has fewer than two up
        try (RedisServer west = TestRedis.startStandalone();
             LodestarClient inWest = RedisLodestar.create(LodestarOptions.builder(west.uri())
                     .namespace("spring-lb-region").region("west").build())) {
            register(inWest, "w", 1000, InstanceStatus.UP);
            runner.withPropertyValues("lodestar.namespace=spring-lb-region", "lodestar.region=east",
                    "lodestar.regions.west.redis-uri=" + west.uri(), "lodestar.region-failover-threshold=2",
                    "lodestar.loadbalancer.prefer-region=east").run(context -> {
                        LodestarClient lodestar = context.getBean(LodestarClient.class);
                        register(lodestar, "e", 1, InstanceStatus.UP);
                        await().atMost(Duration.ofSeconds(10))
                                .until(() -> lodestar.discovery().getInstances("orders").size() == 2);

                        // when / then every call stays in east
                        for (int i = 0; i < 50; i++) {
                            assertThat(context.getBean(LoadBalancerClient.class).choose("orders").getInstanceId())
                                    .isEqualTo("e");
                        }
                    });
        }
    }

    @Test
    void theMetadataPropertiesKeepOnlyInstancesWithThoseEntries() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-metadata", "lodestar.loadbalancer.metadata.version=2",
                "lodestar.loadbalancer.services.orders.metadata.tier=gold").run(context -> {
                    LodestarClient lodestar = context.getBean(LodestarClient.class);
                    lodestar.registry().register(instance("a", 1000, InstanceStatus.UP).metadata("version", "1")
                            .metadata("tier", "gold").build());
                    lodestar.registry().register(instance("b", 1000, InstanceStatus.UP).metadata("version", "2")
                            .metadata("tier", "silver").build());
                    lodestar.registry().register(instance("c", 1, InstanceStatus.UP).metadata("version", "2")
                            .metadata("tier", "gold").build());
                    LoadBalancerClient balancer = context.getBean(LoadBalancerClient.class);

                    for (int i = 0; i < 50; i++) {
                        assertThat(balancer.choose("orders").getInstanceId()).isEqualTo("c");
                    }
                });
    }

    @Test
    void theSlowStartPropertyRampsANewInstanceUp() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-slow-start",
                "lodestar.loadbalancer.strategy=weighted-round-robin", "lodestar.loadbalancer.slow-start=3s")
                .run(context -> {
                    LodestarClient lodestar = context.getBean(LodestarClient.class);
                    // given an instance older than the window
                    register(lodestar, "a", 100, InstanceStatus.UP);
                    await().atMost(Duration.ofSeconds(10)).until(() -> registeredBefore(lodestar, "a",
                            Instant.now().minusSeconds(3)));
                    // when one of the same weight registers
                    register(lodestar, "b", 100, InstanceStatus.UP);
                    LoadBalancerClient balancer = context.getBean(LoadBalancerClient.class);
                    Map<String, Integer> counts = new TreeMap<>();
                    for (int i = 0; i < 101; i++) {
                        counts.merge(balancer.choose("orders").getInstanceId(), 1, Integer::sum);
                    }

                    // then it gets a small share of the calls (at its full weight it would get half: 50 or 51)
                    assertThat(counts.getOrDefault("b", 0)).isBetween(1, 33);
                });
    }

    @Test
    void aServicesOwnPropertiesOverrideTheGlobalOnes() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-per-service",
                "lodestar.loadbalancer.services.orders.strategy=round-robin").run(context -> {
                    LodestarClient lodestar = context.getBean(LodestarClient.class);
                    register(lodestar, "a", 1, InstanceStatus.UP);
                    register(lodestar, "b", 1000, InstanceStatus.UP);
                    LoadBalancerClient balancer = context.getBean(LoadBalancerClient.class);

                    Map<String, Integer> counts = new TreeMap<>();
                    for (int i = 0; i < 100; i++) {
                        counts.merge(balancer.choose("orders").getInstanceId(), 1, Integer::sum);
                    }

                    assertThat(counts).containsEntry("a", 50).containsEntry("b", 50);
                });
    }

    @Test
    void aBadPerServicePropertyFailsTheStartNamingIt() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-bad-service",
                "lodestar.loadbalancer.services.orders.slow-start=-5s").run(context -> {
                    FailureAnalysis analysis = new LodestarFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("lodestar.loadbalancer.services.orders.slow-start must be ");
                });
    }

    @Test
    void everyBadBalancerPropertyIsNamedAsTheMicronautModuleNamesIt() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-bad-both",
                "lodestar.loadbalancer.services.orders.slow-start=25h", "lodestar.loadbalancer.canary.percent=150")
                .run(context -> {
                    FailureAnalysis analysis = new LodestarFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis.getDescription())
                            .contains("lodestar.loadbalancer.services.orders.slow-start must be at most PT24H, "
                                    + "but was PT25H")
                            .contains("lodestar.loadbalancer.canary.percent must be between 0 and 100, "
                                    + "but was 150.0");
                });
    }

    @Test
    void theCanaryShareSendsThatPartOfTheCallsToCanaryInstances() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-canary", "lodestar.loadbalancer.canary.percent=25")
                .run(context -> {
                    LodestarClient lodestar = context.getBean(LodestarClient.class);
                    lodestar.registry().register(instance("a", 100, InstanceStatus.UP).metadata("canary", "true")
                            .build());
                    register(lodestar, "b", 100, InstanceStatus.UP);
                    LoadBalancerClient balancer = context.getBean(LoadBalancerClient.class);

                    Map<String, Integer> counts = new TreeMap<>();
                    for (int i = 0; i < 1000; i++) {
                        counts.merge(balancer.choose("orders").getInstanceId(), 1, Integer::sum);
                    }

                    assertThat(chiSquare(counts.get("a"), 250, counts.get("b"), 750)).isLessThan(CHI_SQUARE_CRITICAL);
                });
    }

    @Test
    @SuppressWarnings({"unchecked", "checkstyle:FullyQualifiedName"}) // Spring Cloud's ServiceInstance in full
    void theCanaryHintHeaderSendsThatRequestToTheCanariesOnEveryPath() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-canary-hint",
                "lodestar.loadbalancer.canary.hint-header=X-Canary").run(context -> {
                    LodestarClient lodestar = context.getBean(LodestarClient.class);
                    lodestar.registry().register(instance("a", 100, InstanceStatus.UP).metadata("canary", "true")
                            .build());
                    register(lodestar, "b", 100, InstanceStatus.UP);
                    LoadBalancerClient balancer = context.getBean(LoadBalancerClient.class);
                    ReactiveLoadBalancer.Factory<org.springframework.cloud.client.ServiceInstance> reactive =
                            context.getBean(ReactiveLoadBalancer.Factory.class);
                    MockClientHttpRequest hinted =
                            new MockClientHttpRequest(HttpMethod.GET, URI.create("http://orders/"));
                    hinted.getHeaders().add("X-Canary", "true");
                    DefaultRequest<RequestDataContext> request =
                            new DefaultRequest<>(new RequestDataContext(new RequestData(hinted)));

                    for (int i = 0; i < 20; i++) {
                        assertThat(balancer.choose("orders").getInstanceId()).isEqualTo("b");
                        assertThat(balancer.choose("orders", request).getInstanceId()).isEqualTo("a");
                        assertThat(balancer.execute("orders", new HintedCall(hinted))).isEqualTo("a");
                        assertThat(Mono.from(reactive.getInstance("orders").choose(request))
                                .block(Duration.ofSeconds(5)).getServer().getInstanceId()).isEqualTo("a");
                    }
                });
    }

    /** What a @LoadBalanced RestClient hands the balancer: a call that knows its HTTP request. */
    @SuppressWarnings("checkstyle:FullyQualifiedName") // Spring Cloud's ServiceInstance beside ours
    private record HintedCall(HttpRequest request) implements HttpRequestLoadBalancerRequest<String> {
        @Override
        public String apply(org.springframework.cloud.client.ServiceInstance instance) {
            return instance.getInstanceId();
        }

        @Override
        public HttpRequest getHttpRequest() {
            return request;
        }
    }

    @Test
    void aCanaryShareOutOfRangeFailsTheStartNamingIt() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-bad-canary", "lodestar.loadbalancer.canary.percent=150")
                .run(context -> {
                    FailureAnalysis analysis = new LodestarFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("lodestar.loadbalancer.canary.percent must be between 0 and 100");
                });
    }

    @Test
    void withoutAnUpInstanceChooseIsNullAndExecuteNamesTheService() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-none").run(context -> {
            register(context.getBean(LodestarClient.class), "a", 100, InstanceStatus.DOWN);
            LoadBalancerClient balancer = context.getBean(LoadBalancerClient.class);

            assertThat(balancer.choose("orders")).isNull();
            assertThatThrownBy(() -> balancer.execute("orders", instance -> "called"))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("orders");
        });
    }

    @Test
    void aLoadBalancerClientOfTheUserWins() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-user").withUserConfiguration(UserBalancer.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(LoadBalancerClient.class);
                    assertThat(context.getBean(LoadBalancerClient.class))
                            .isSameAs(context.getBean("userLoadBalancerClient"));
                });
    }

    @Test
    void loadbalancerEnabledFalseTurnsItOff() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-off", "lodestar.loadbalancer.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(LoadBalancerClient.class);
                    assertThat(context).doesNotHaveBean(ReactiveLoadBalancer.Factory.class);
                });
    }

    @Test
    void withoutReactorOnlyTheBlockingClientIsThere() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-no-reactor")
                .withClassLoader(new FilteredClassLoader("reactor.core")).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(LoadBalancerClient.class);
                    assertThat(context).doesNotHaveBean(ReactiveLoadBalancer.Factory.class);
                });
    }

    @Test
    void aBadBalancerPropertyFailsTheStartNamingIt() {
        runner.withPropertyValues("lodestar.namespace=spring-lb-bad", "lodestar.loadbalancer.strategy=round-robin",
                "lodestar.loadbalancer.slow-start=30s").run(context -> {
                    FailureAnalysis analysis = new LodestarFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("lodestar.loadbalancer.strategy must be ")
                            .contains("but was ROUND_ROBIN");
                });
    }

    static double chiSquare(int observedA, double expectedA, int observedB, double expectedB) {
        return Math.pow(observedA - expectedA, 2) / expectedA + Math.pow(observedB - expectedB, 2) / expectedB;
    }

    private static boolean registeredBefore(LodestarClient lodestar, String id, Instant instant) {
        return lodestar.discovery().getInstances("orders").stream().anyMatch(instance ->
                instance.instanceId().equals(id) && instance.registeredAt().isBefore(instant));
    }

    private static void register(LodestarClient lodestar, String id, int weight, InstanceStatus status) {
        lodestar.registry().register(instance(id, weight, status).build());
    }

    private static ServiceInstance.Builder instance(String id, int weight, InstanceStatus status) {
        return ServiceInstance.builder("orders", id).host("10.0.0.1").port(8000 + id.charAt(0)).weight(weight)
                .status(status);
    }

    @Configuration(proxyBeanMethods = false)
    static class UserBalancer {
        @Bean
        LoadBalancerClient userLoadBalancerClient(LodestarClient lodestar) {
            return new LodestarLoadBalancerClient(lodestar,
                    new LodestarBalancers(new LodestarProperties.Balancing()));
        }
    }
}
