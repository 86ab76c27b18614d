/**
 * The greeting service: registers itself with the module and takes its greeting from a Lodestar config that refreshes live.
 */
package io.lodestar.examples.micronaut.greeting;
