package io.lodestar.jmh;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link WriteBenchmark} with sixteen threads sharing one client (and the baseline one Lettuce connection).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar WriteBenchmark16Threads -rf json -rff jmh/results-writes-16.json
 * </pre>
 */
@Threads(16)
public class WriteBenchmark16Threads extends WriteBenchmark {
}
