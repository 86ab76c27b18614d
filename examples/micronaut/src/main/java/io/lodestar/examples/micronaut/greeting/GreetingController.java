package io.lodestar.examples.micronaut.greeting;

import io.lodestar.micronaut.LodestarRegistrationConfiguration;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.runtime.server.EmbeddedServer;
import jakarta.inject.Provider;

/** {@code GET /greeting?name=Ada}: the current template, and which instance answered. */
@Controller("/greeting")
@Requires(env = GreetingApplication.ENVIRONMENT)
class GreetingController {
    private final GreetingTemplate template;
    private final LodestarRegistrationConfiguration registration;
    private final Provider<EmbeddedServer> server;

    GreetingController(GreetingTemplate template, LodestarRegistrationConfiguration registration,
                       Provider<EmbeddedServer> server) {
        this.template = template;
        this.registration = registration;
        this.server = server;
    }

    @Get
    Greeting greet(@QueryValue(defaultValue = "world") String name) {
        return new Greeting(template.render(name), instanceId(), registration.getZone());
    }

    /** The id Lodestar registered this instance under: the configured one, else host:port (Lodestar's default). */
    private String instanceId() {
        if (registration.getInstanceId() != null) {
            return registration.getInstanceId();
        }
        EmbeddedServer embedded = server.get();
        return embedded.getHost() + ":" + embedded.getPort();
    }
}
