package io.lodestar.examples.spring.client;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/** {@code GET /hello?name=Ada}: asks one greeting-service instance, chosen by Lodestar, and returns its answer. */
@RestController
class HelloController {
    private final RestClient greetingService;

    /**
     * @param loadBalanced the {@code @LoadBalanced} builder, a shared bean (cloned, not changed); its host names are
     *                     service ids
     */
    HelloController(RestClient.Builder loadBalanced) {
        this.greetingService = loadBalanced.clone().baseUrl("http://greeting-service").build();
    }

    @GetMapping("/hello")
    Greeting hello(@RequestParam(name = "name", defaultValue = "World") String name) {
        return greetingService.get().uri("/greeting?name={name}", name).retrieve().body(Greeting.class);
    }

    /**
     * greeting-service's answer.
     *
     * @param message  the greeting
     * @param instance the id of the greeting-service instance that answered
     * @param zone     its zone, or null
     */
    record Greeting(String message, String instance, String zone) {
    }
}
