package io.lodestar.redis.internal.view;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The view engine's parts need no Redis: their package imports nothing of Lettuce and nothing of the Redis package
 * (the key layout, the scripts, the connection), only the JDK and the engine's other internal packages.
 */
class ViewPackageTest {
    private static final Path SOURCES = Path.of("src/main/java/io/lodestar/redis/internal/view");

    @Test
    void thePackageImportsNeitherLettuceNorTheRedisPackage() throws IOException {
        List<String> imports;
        try (Stream<Path> files = Files.list(SOURCES)) {
            imports = files.flatMap(ViewPackageTest::lines).filter(line -> line.startsWith("import ")).toList();
        }

        assertThat(imports).as("the package's imports").isNotEmpty()
                .noneMatch(line -> line.startsWith("import io.lettuce."))
                .allMatch(line -> !line.startsWith("import io.lodestar.redis.")
                        || line.startsWith("import io.lodestar.redis.internal."), "only the engine's internal packages");
    }

    private static Stream<String> lines(Path file) {
        try {
            return Files.readAllLines(file).stream();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }
}
