package io.lodestar.examples.micronaut.greeting;

import io.micronaut.core.annotation.Introspected;

/**
 * What {@code GET /greeting} answers.
 *
 * @param message  the rendered template
 * @param instance the id under which the answering instance is registered in Lodestar
 * @param zone     its zone, or null
 */
@Introspected
public record Greeting(String message, String instance, String zone) {
}
