package io.lodestar.examples.spring.greeting;

import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /greeting?name=Ada}: the greeting, and which instance (and zone) answered. */
@RestController
class GreetingController {
    private final GreetingProperties properties;
    private final Registration registration;

    /**
     * @param properties   the template, rebound when the config entry changes in Redis
     * @param registration this application's own registration (Spring Cloud's view of it), known once it listens
     */
    GreetingController(GreetingProperties properties, Registration registration) {
        this.properties = properties;
        this.registration = registration;
    }

    @GetMapping("/greeting")
    Greeting greeting(@RequestParam(name = "name", defaultValue = "World") String name) {
        return new Greeting(properties.getTemplate().replace("{name}", name), registration.getInstanceId(),
                registration.getMetadata().get("zone"));
    }

    /**
     * The answer.
     *
     * @param message  the greeting
     * @param instance the id of the instance that answered
     * @param zone     its zone, or null
     */
    record Greeting(String message, String instance, String zone) {
    }
}
