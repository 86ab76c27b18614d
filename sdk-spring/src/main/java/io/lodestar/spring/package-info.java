/**
 * Spring Boot auto-configuration for Lodestar: a thin adapter over the plain-Java API. Every bean is
 * {@code @ConditionalOnMissingBean}; each concern has its own auto-configuration and its own switch.
 */
package io.lodestar.spring;
