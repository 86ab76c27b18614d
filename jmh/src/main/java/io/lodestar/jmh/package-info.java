/**
 * JMH benchmarks of Lodestar's public API: cached against direct reads ({@link io.lodestar.jmh.DiscoveryReadBenchmark},
 * {@link io.lodestar.jmh.ConfigReadBenchmark}), writes through the Lua scripts with a raw GET baseline
 * ({@link io.lodestar.jmh.WriteBenchmark}), propagation from one client's write to another client's view
 * ({@link io.lodestar.jmh.PropagationBenchmark}) and load balancer choice ({@link io.lodestar.jmh.ChooseBenchmark}).
 *
 * <p>Each benchmark state starts its own private {@code redis-server} through the test kit, or uses
 * {@code LODESTAR_REDIS_URI} when set. {@code jmh/run.sh} runs the suite; {@code docs/benchmarks.md} has the
 * results.
 */
package io.lodestar.jmh;
