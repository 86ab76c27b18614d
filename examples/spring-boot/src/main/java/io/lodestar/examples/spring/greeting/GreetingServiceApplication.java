package io.lodestar.examples.spring.greeting;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * greeting-service: registers itself with Lodestar once its web server listens (weight and zone from
 * {@code lodestar.registration.*}) and answers {@code GET /greeting?name=…} with a template imported from the config
 * entry {@code greeting/template} in Redis, followed live.
 *
 * <p>Its settings are in {@code greeting-service.yml}: this module holds two applications, so each reads its own file
 * (in a project of your own it is {@code application.yml} and the main method is {@code SpringApplication.run}).
 */
@SpringBootApplication
@EnableConfigurationProperties(GreetingProperties.class)
public class GreetingServiceApplication {

    /** @param args Spring Boot arguments, e.g. {@code --server.port=8081 --lodestar.registration.weight=3} */
    public static void main(String[] args) {
        application().run(args);
    }

    /** @return the application, reading {@code greeting-service.yml} */
    public static SpringApplicationBuilder application() {
        return new SpringApplicationBuilder(GreetingServiceApplication.class)
                .properties("spring.config.name=greeting-service");
    }
}
