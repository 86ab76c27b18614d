package io.lodestar.spring;

import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import static io.lodestar.spring.LodestarLoadBalancerAutoConfigurationIT.CHI_SQUARE_CRITICAL;
import static io.lodestar.spring.LodestarLoadBalancerAutoConfigurationIT.chiSquare;
import static org.assertj.core.api.Assertions.assertThat;

/** Two real applications register with weights 1:3; one calls "http://echo/port" through @LoadBalanced clients. */
class LodestarLoadBalancedWebIT {

    @Test
    void loadBalancedCallsSplitAsTheWeightsSay() {
        try (ConfigurableApplicationContext light = start(100); ConfigurableApplicationContext heavy = start(300)) {
            RestClient client = light.getBean(RestClient.Builder.class).build();

            Map<String, Integer> byPort = new TreeMap<>();
            for (int i = 0; i < 1000; i++) {
                byPort.merge(client.get().uri("http://echo/port").retrieve().body(String.class), 1, Integer::sum);
            }

            String lightPort = port(light);
            String heavyPort = port(heavy);
            assertThat(byPort).containsOnlyKeys(lightPort, heavyPort);
            assertThat(chiSquare(byPort.get(lightPort), 250, byPort.get(heavyPort), 750))
                    .isLessThan(CHI_SQUARE_CRITICAL);
        }
    }

    @Test
    void loadBalancedWebClientCallsSplitAsTheWeightsSayToo() {
        try (ConfigurableApplicationContext light = start(100); ConfigurableApplicationContext heavy = start(300)) {
            WebClient client = light.getBean(WebClient.Builder.class)
                    .clientConnector(new JdkClientHttpConnector()).build();

            Map<String, Integer> byPort = new TreeMap<>();
            for (int i = 0; i < 400; i++) {
                String port = client.get().uri("http://echo/port").retrieve().bodyToMono(String.class)
                        .block(Duration.ofSeconds(5));
                byPort.merge(port, 1, Integer::sum);
            }

            String lightPort = port(light);
            String heavyPort = port(heavy);
            assertThat(byPort).containsOnlyKeys(lightPort, heavyPort);
            assertThat(chiSquare(byPort.get(lightPort), 100, byPort.get(heavyPort), 300))
                    .isLessThan(CHI_SQUARE_CRITICAL);
        }
    }

    private static String port(ConfigurableApplicationContext app) {
        return String.valueOf(((WebServerApplicationContext) app).getWebServer().getPort());
    }

    private static ConfigurableApplicationContext start(int weight) {
        return new SpringApplicationBuilder(App.class).properties("server.port=0", "spring.application.name=echo",
                "lodestar.redis-uri=" + TestRedis.standalone().uri(), "lodestar.namespace=spring-lb-web",
                "lodestar.reconcile-interval=1h", "lodestar.registration.host=127.0.0.1",
                "lodestar.registration.weight=" + weight, "lodestar.loadbalancer.seed=7").run();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(PortController.class)
    static class App {
        @Bean
        @LoadBalanced
        RestClient.Builder loadBalancedRestClientBuilder() {
            return RestClient.builder();
        }

        @Bean
        @LoadBalanced
        WebClient.Builder loadBalancedWebClientBuilder() {
            return WebClient.builder();
        }
    }

    @RestController
    static class PortController {
        private final Environment environment;

        PortController(Environment environment) {
            this.environment = environment;
        }

        @GetMapping("/port")
        String port() {
            return environment.getProperty("local.server.port");
        }
    }
}
