package io.lodestar.examples;

import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Builds a GraalVM native image of the demo and runs it against a real Redis: proof that the reachability metadata
 * shipped in lodestar-redis is complete. Needs {@code native-image} on the PATH (or in {@code $GRAALVM_HOME/bin});
 * the build never downloads a toolchain, so where there is none the test is skipped and says so.
 */
class NativeImageIT {
    @Test
    void theDemoRunsAsANativeImage() throws IOException, InterruptedException {
        Optional<Path> nativeImage = nativeImage();
        Assumptions.assumeTrue(nativeImage.isPresent(), "GraalVM native-image is not on the PATH (nor in"
                + " $GRAALVM_HOME/bin): the native build of the demo is skipped");
        Path output = Files.createDirectories(Path.of("target", "native"));
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("test-classes")).collect(Collectors.joining(File.pathSeparator));

        int built = run(List.of(nativeImage.get().toString(), "--no-fallback", "-cp", classPath,
                "-o", output.resolve("demo").toString(), Demo.class.getName()), output.resolve("build.log"), 30);
        assertThat(built).as("native-image exit code, see target/native/build.log").isZero();

        try (RedisServer redis = TestRedis.startStandalone()) {
            ProcessBuilder demo = new ProcessBuilder(output.resolve("demo").toAbsolutePath().toString());
            demo.environment().put("LODESTAR_REDIS_URI", redis.uri());
            int ran = run(demo, output.resolve("run.log"), 3);
            assertThat(ran).as("native demo exit code, see target/native/run.log").isZero();
        }
    }

    private static Optional<Path> nativeImage() {
        String graal = System.getenv("GRAALVM_HOME");
        List<String> dirs = new ArrayList<>(Arrays.asList(
                System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        if (graal != null) {
            dirs.add(0, Path.of(graal, "bin").toString());
        }
        return dirs.stream().filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, "native-image"))
                .filter(Files::isExecutable).findFirst();
    }

    private static int run(List<String> command, Path log, int minutes) throws IOException, InterruptedException {
        return run(new ProcessBuilder(command), log, minutes);
    }

    private static int run(ProcessBuilder builder, Path log, int minutes) throws IOException, InterruptedException {
        Process process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("still running after " + minutes + " min: " + builder.command());
        }
        return process.exitValue();
    }
}
