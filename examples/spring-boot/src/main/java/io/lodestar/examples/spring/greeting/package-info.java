/**
 * The greeting service: registers itself with the starter and takes its greeting from a Lodestar config that refreshes live.
 */
package io.lodestar.examples.spring.greeting;
