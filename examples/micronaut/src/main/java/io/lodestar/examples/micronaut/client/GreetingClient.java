package io.lodestar.examples.micronaut.client;

import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.client.annotation.Client;

/**
 * greeting-service, by its service id: no URL anywhere. Lodestar's discovery client lists its instances from the
 * local view and Lodestar's balancer picks one per call (weighted random by default, see
 * {@code lodestar.loadbalancer.*}).
 */
@Client(id = "greeting-service")
public interface GreetingClient {
    /**
     * @param name who is greeted
     * @return the greeting, and which instance answered
     */
    @Get("/greeting")
    Greeting greet(@QueryValue String name);
}
