package io.lodestar.examples.micronaut.client;

import io.micronaut.core.annotation.Introspected;

/**
 * What greeting-service answers; client-service's own copy of the contract, as a separate service would have.
 *
 * @param message  the greeting
 * @param instance the id of the greeting-service instance that answered
 * @param zone     its zone, or null
 */
@Introspected
public record Greeting(String message, String instance, String zone) {
}
