package io.lodestar.jmh;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link WriteBenchmark} with four threads sharing one client (and the baseline one Lettuce connection).
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar WriteBenchmark4Threads -rf json -rff jmh/results-writes-4.json
 * </pre>
 */
@Threads(4)
public class WriteBenchmark4Threads extends WriteBenchmark {
}
