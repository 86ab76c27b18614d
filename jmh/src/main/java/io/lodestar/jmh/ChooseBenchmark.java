package io.lodestar.jmh;

import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;
import io.lodestar.loadbalancer.Strategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Load balancer {@code choose}, single-threaded, on a plain Java list built once (as a discovery view hands out the
 * same list until the service changes, so the balancer's preparation is cached and every call is a pick):
 * <ul>
 *   <li>{@code choose}: the strategy alone (behind the default healthy-only filter);</li>
 *   <li>{@code chooseWithSelectors}: zone preference for {@code eu-1}, then metadata {@code version=2}.</li>
 * </ul>
 * Instances are spread over three zones, half of them {@code version=2}, with weights 50-200; every tenth is
 * {@code DOWN}. No Redis is involved.
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar ChooseBenchmark -prof gc -rf json -rff jmh/results-choose.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(2)
public class ChooseBenchmark {

    /** The list and two balancers of one strategy. */
    @State(Scope.Benchmark)
    public static class Balancers {
        @Param({"10", "100", "1000"})
        public int instances;

        @Param({"WEIGHTED_RANDOM", "WEIGHTED_ROUND_ROBIN", "ROUND_ROBIN"})
        public Strategy strategy;

        List<ServiceInstance> list;
        LoadBalancer plain;
        LoadBalancer withSelectors;

        /** Builds the list and the balancers, and lets each prepare for the list once. */
        @Setup(Level.Trial)
        public void setUp() {
            list = Fixtures.instances(Fixtures.SERVICE, instances, true);
            plain = LoadBalancers.builder(strategy).build();
            withSelectors = LoadBalancers.builder(strategy)
                    .selector(Selectors.zonePreference("eu-1"))
                    .selector(Selectors.metadata("version", "2"))
                    .build();
            Fixtures.check(plain.choose(list) != null, "a choice");
            ServiceInstance chosen = withSelectors.choose(list);
            Fixtures.check("eu-1".equals(chosen.metadata("zone")) && "2".equals(chosen.metadata("version")),
                    "the selectors to keep eu-1, version 2");
        }
    }

    /** @return the chosen instance */
    @Benchmark
    public ServiceInstance choose(Balancers state) {
        return state.plain.choose(state.list);
    }

    /** @return the chosen instance, from eu-1 and version 2 */
    @Benchmark
    public ServiceInstance chooseWithSelectors(Balancers state) {
        return state.withSelectors.choose(state.list);
    }
}
