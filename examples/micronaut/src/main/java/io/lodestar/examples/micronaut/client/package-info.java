/**
 * The client application: a declarative {@code @Client(id = ...)} that Lodestar's view resolves and balances.
 */
package io.lodestar.examples.micronaut.client;
