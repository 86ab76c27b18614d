/**
 * Micronaut 4 integration: binds {@code lodestar.*} to {@link io.lodestar.core.LodestarSettings}, provides the
 * {@link io.lodestar.core.LodestarClient} bean, a {@code DiscoveryClient} over its local view, auto-registration of
 * the embedded server and a health indicator. Every bean is a thin adapter over the plain-Java API; each concern
 * has its own {@code @Factory}, switched off by {@code lodestar.<concern>.enabled=false}.
 */
package io.lodestar.micronaut;
