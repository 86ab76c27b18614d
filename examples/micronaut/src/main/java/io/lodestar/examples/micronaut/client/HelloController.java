package io.lodestar.examples.micronaut.client;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** {@code GET /hello?name=Ada}: asks greeting-service, whichever instance Lodestar chooses. */
@Controller("/hello")
@Requires(env = ClientApplication.ENVIRONMENT)
class HelloController {
    private final GreetingClient greetings;

    HelloController(GreetingClient greetings) {
        this.greetings = greetings;
    }

    /** Blocking client call, so off the event loop. */
    @Get
    @ExecuteOn(TaskExecutors.BLOCKING)
    Greeting hello(@QueryValue(defaultValue = "world") String name) {
        return greetings.greet(name);
    }
}
