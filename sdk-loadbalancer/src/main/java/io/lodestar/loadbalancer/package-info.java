/**
 * Client-side load balancing over a {@code List<ServiceInstance>}: weighted random (alias method), smooth weighted
 * round robin (nginx), round robin and random, behind one small interface, {@link io.lodestar.loadbalancer.LoadBalancer}.
 *
 * <p>Build one balancer per service with {@link io.lodestar.loadbalancer.LoadBalancers}; narrow the candidates with
 * {@link io.lodestar.loadbalancer.Selectors} (status, metadata, zone preference, custom predicates) and optionally
 * split traffic with {@link io.lodestar.loadbalancer.CanaryRouting}. Everything a choice needs is prepared once per
 * instance list (by identity) and cached, so {@code choose} is O(1), takes no lock and allocates nothing.
 * {@link io.lodestar.loadbalancer.LoadBalancerSettings} is the same as settings to bind: the Spring Boot and Micronaut
 * modules subclass it for {@code lodestar.loadbalancer.*}. Nothing here depends on Redis, Spring or Micronaut.
 */
package io.lodestar.loadbalancer;
