/**
 * The Micronaut example: {@code RunExample} starts a greeting service and a client on one Redis (embedded when none is configured).
 */
package io.lodestar.examples.micronaut;
