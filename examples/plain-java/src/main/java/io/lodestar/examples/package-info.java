/**
 * The plain-Java examples: {@code QuickStart} (register, discover, read a config) and {@code Demo} (the README's demo, on an auto-started Redis when none is configured: discovery through a local view, balancing, expiry, live config, and a Redis outage the view rides out and heals from).
 */
package io.lodestar.examples;
