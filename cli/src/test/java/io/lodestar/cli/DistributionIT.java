package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distribution as an operator installs it: the {@code .tar.gz} built by {@code package}, unpacked, its
 * {@code bin/lodestar} run against a real Redis, with its class-data archive in a directory of the test's: a
 * class-data-sharing archive on a JVM before 25 (the one running the build, when it is one), an ahead-of-time cache
 * on a JDK 25 or later ({@code -Dlodestar.test.aotJava}, set by the cli pom when it finds one).
 */
class DistributionIT {
    @TempDir
    static Path installed;
    private static Path launcher;

    @TempDir
    Path cds;
    private final RedisServer redis = TestRedis.standalone();
    private final String namespace = "dist-" + UUID.randomUUID().toString().substring(0, 8);
    private LodestarClient sdk;

    @BeforeAll
    static void unpack() {
        CliJar.Result untar = CliJar.exec(List.of("tar", "-xzf", CliJar.distribution().toString(), "-C",
                installed.toString()), Map.of(), "");
        assertThat(untar.exitCode()).as(untar.toString()).isZero();
        try (Stream<Path> homes = Files.list(installed)) {
            launcher = homes.findFirst().orElseThrow().resolve("bin/lodestar");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @BeforeEach
    void connect() {
        sdk = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace).build());
    }

    @AfterEach
    void close() {
        sdk.close();
    }

    /**
     * Runs the launcher (or a link to it) as a shell would, on the JVM running the tests, with the Redis URI and
     * namespace in the environment.
     */
    private CliJar.Result lodestar(Path command, Map<String, String> env, String stdin, String... args) {
        return lodestar(Path.of(System.getProperty("java.home")), command, env, stdin, args);
    }

    private CliJar.Result lodestar(Path javaHome, Path command, Map<String, String> env, String stdin,
                                   String... args) {
        Map<String, String> all = new HashMap<>(env);
        all.put("JAVA_HOME", javaHome.toString());
        all.put("LODESTAR_CDS_DIR", cds.toString());
        all.put("LODESTAR_REDIS_URI", redis.uri());
        all.put("LODESTAR_NAMESPACE", namespace);
        List<String> line = new ArrayList<>(List.of(command.toString()));
        line.addAll(List.of(args));
        return CliJar.exec(line, all, stdin);
    }

    private CliJar.Result lodestar(String... args) {
        return lodestar(launcher, Map.of(), "", args);
    }

    private List<String> cdsFiles() throws IOException {
        try (Stream<Path> files = Files.list(cds)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void theLauncherRunsAOneShotCommandAgainstRedis() {
        sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080)
                .ttl(Duration.ofSeconds(30)).build());

        CliJar.Result result = lodestar("-o", "json", "services");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.json().get(0).get("service").asText()).isEqualTo("orders");
        assertThat(result.json().get(0).get("instances").asInt()).isEqualTo(1);
    }

    @Test
    void theLauncherPassesStandardInputAndTheExitCodeOn() {
        CliJar.Result set = lodestar(launcher, Map.of(), "limit: 5\n", "config", "set", "orders/limits", "-f", "yaml");
        CliJar.Result missing = lodestar("config", "get", "orders/nothing");

        assertThat(set.exitCode()).as(set.toString()).isZero();
        assertThat(sdk.directConfig().get("orders/limits")).get().satisfies(entry -> {
            assertThat(entry.content()).isEqualTo("limit: 5\n");
            assertThat(entry.format()).isEqualTo(ConfigFormat.YAML);
        });
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(ExitCodes.NOT_FOUND);
    }

    @Test
    void theLauncherFindsItsInstallationThroughASymbolicLinkOnPath(@TempDir Path bin) throws IOException {
        Path link = Files.createSymbolicLink(bin.resolve("lodestar"), launcher);
        sdk.config().set("orders/limits", "limit: 5\n", ConfigFormat.YAML);

        CliJar.Result result = lodestar(link, Map.of(), "", "config", "get", "orders/limits");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("limit: 5\n");
    }

    /** A JDK 25 or later, where the launcher keeps an ahead-of-time cache; the test is skipped when there is none. */
    private static Path aotJava() {
        String home = System.getProperty("lodestar.test.aotJava", "");
        Assumptions.assumeTrue(!home.isBlank() && Files.isExecutable(Path.of(home, "bin", "java")), "No JDK 25 or"
                + " later found (-Dlodestar.test.aotJava, set by the cli pom from $JAVA25_HOME or"
                + " /usr/lib/jvm/temurin-25-jdk-amd64): the ahead-of-time cache cannot be tested here");
        return Path.of(home);
    }

    @Test
    void beforeJava25TheFirstSuccessfulCommandLeavesAClassDataArchiveThatTheNextOneUses() throws IOException {
        Assumptions.assumeTrue(Runtime.version().feature() < 25, "the JVM running the tests is "
                + Runtime.version() + ": the launcher keeps an ahead-of-time cache there (tested below)");
        CliJar.Result first = lodestar("services");
        List<String> archives = cdsFiles();
        // -Xshare:on: the JVM refuses to start when it cannot use the archive (another JVM, another class path)
        CliJar.Result next = lodestar(launcher, Map.of("LODESTAR_JAVA_OPTS", "-Xshare:on"), "", "services");

        assertThat(first.exitCode()).as(first.toString()).isZero();
        assertThat(archives).singleElement().asString().matches("cds-[0-9]+\\.jsa");
        assertThat(next.exitCode()).as(next.toString()).isZero();
        assertThat(next.err()).isEmpty();
    }

    @Test
    void onJava25TheFirstSuccessfulCommandLeavesAnAheadOfTimeCacheThatTheNextOneUses() throws IOException {
        Path java25 = aotJava();
        sdk.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080)
                .ttl(Duration.ofSeconds(30)).build());

        CliJar.Result first = lodestar(java25, launcher, Map.of(), "", "-o", "json", "services");
        List<String> caches = cdsFiles();
        // -XX:AOTMode=on: the JVM refuses to start when it cannot use the cache (another JVM, another class path)
        CliJar.Result next = lodestar(java25, launcher, Map.of("LODESTAR_JAVA_OPTS", "-XX:AOTMode=on"), "", "-o",
                "json", "services");

        assertThat(first.exitCode()).as(first.toString()).isZero();
        assertThat(caches).singleElement().asString().matches("aot-[0-9]+\\.aot");
        assertThat(next.exitCode()).as(next.toString()).isZero();
        assertThat(next.err()).isEmpty();
        // what the JVMs that record and build the cache print stays out of the command's output
        assertThat(first.out()).isEqualTo(next.out());
        assertThat(first.err()).isEmpty();
        assertThat(first.json().get(0).get("service").asText()).isEqualTo("orders");
    }

    @Test
    void onJava25AFailedCommandLeavesNoCache() throws IOException {
        Path java25 = aotJava();

        CliJar.Result missing = lodestar(java25, launcher, Map.of(), "", "config", "get", "orders/nothing");

        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cdsFiles()).isEmpty();
    }

    @Test
    void onJava25TheVersionAndHelpMakeNoCache() throws IOException {
        Path java25 = aotJava();

        CliJar.Result version = lodestar(java25, launcher, Map.of(), "", "--version");
        CliJar.Result help = lodestar(java25, launcher, Map.of(), "", "--help");

        assertThat(version.exitCode()).as(version.toString()).isZero();
        assertThat(help.exitCode()).as(help.toString()).isZero();
        assertThat(cdsFiles()).isEmpty();
    }

    @Test
    void onJava25WithTheArchiveTurnedOffNothingIsWritten() throws IOException {
        Path java25 = aotJava();

        CliJar.Result result = lodestar(java25, launcher, Map.of("LODESTAR_CDS", "off"), "", "services");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(cdsFiles()).isEmpty();
    }

    @Test
    void aFailedCommandLeavesNoArchive() throws IOException {
        CliJar.Result missing = lodestar("config", "get", "orders/nothing");

        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cdsFiles()).isEmpty();
    }

    @Test
    void withTheArchiveTurnedOffNothingIsWritten() throws IOException {
        CliJar.Result result = lodestar(launcher, Map.of("LODESTAR_CDS", "off"), "", "services");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(cdsFiles()).isEmpty();
    }
}
