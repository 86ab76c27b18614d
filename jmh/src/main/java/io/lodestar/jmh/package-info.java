/**
 * JMH benchmarks of Lodestar's public API: view reads against an in-memory floor and against direct reads
 * ({@link io.lodestar.jmh.DiscoveryReadBenchmark}, {@link io.lodestar.jmh.ConfigReadBenchmark}), writes through the
 * Lua scripts against the same scripts run by a plain EVALSHA and against a fixed floor script
 * ({@link io.lodestar.jmh.WriteBenchmark}, {@link io.lodestar.jmh.FloorScript}), propagation
 * from one client's write to another client's view in one JVM ({@link io.lodestar.jmh.PropagationBenchmark}) and
 * load balancer choice ({@link io.lodestar.jmh.ChooseBenchmark}); and, as a plain main class beside them,
 * cross-process propagation with paced writes ({@link io.lodestar.jmh.CrossProcessPropagation}).
 *
 * <p>Each benchmark state starts its own private {@code redis-server} through the test kit, or uses
 * {@code LODESTAR_REDIS_URI} when set. {@code jmh/run.sh} runs the suite; {@code docs/benchmarks.md} has the
 * results.
 */
package io.lodestar.jmh;
