package io.lodestar.examples.spring.client;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestClient;

/**
 * client-service: answers {@code GET /hello?name=…} by calling {@code http://greeting-service/greeting} through a
 * {@code @LoadBalanced} {@link RestClient}: Lodestar chooses an {@code UP} instance from its local view, in proportion
 * to the instances' weights.
 *
 * <p>Its settings are in {@code client-service.yml} (see {@code GreetingServiceApplication} for why not
 * {@code application.yml}).
 */
@SpringBootApplication
public class ClientServiceApplication {

    /** @param args Spring Boot arguments, e.g. {@code --server.port=8080} */
    public static void main(String[] args) {
        application().run(args);
    }

    /** @return the application, reading {@code client-service.yml} */
    public static SpringApplicationBuilder application() {
        return new SpringApplicationBuilder(ClientServiceApplication.class)
                .properties("spring.config.name=client-service");
    }

    /**
     * Spring Cloud Commons adds the load balancer's interceptor to every {@code @LoadBalanced} builder: a call to
     * {@code http://greeting-service/…} goes to an instance Lodestar chooses.
     *
     * @return the builder of load-balanced clients
     */
    @Bean
    @LoadBalanced
    RestClient.Builder loadBalancedRestClientBuilder() {
        return RestClient.builder();
    }
}
