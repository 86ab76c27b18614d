package io.lodestar.jmh;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link WriteBenchmark} with one thread.
 *
 * <p>Run (from the repository root, after {@code ./mvnw -q -pl jmh -am package -DskipTests}):
 * <pre>
 * java -jar jmh/target/benchmarks.jar WriteBenchmark1Thread -rf json -rff jmh/results-writes-1.json
 * </pre>
 */
@Threads(1)
public class WriteBenchmark1Thread extends WriteBenchmark {
}
