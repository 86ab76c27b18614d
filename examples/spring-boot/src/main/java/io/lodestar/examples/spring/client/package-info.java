/**
 * The client application: calls the greeting service through a {@code @LoadBalanced} client that Lodestar's view answers.
 */
package io.lodestar.examples.spring.client;
