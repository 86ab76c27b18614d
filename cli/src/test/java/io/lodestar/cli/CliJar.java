package io.lodestar.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs the real, shaded {@code lodestar-cli} jar (built by {@code package}, before the integration tests) in its own
 * JVM, as an operator's shell would: arguments, environment, standard input; every run bounded.
 */
final class CliJar {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final long TIMEOUT_SECONDS = 60;

    private CliJar() {
    }

    /** What one run printed and how it exited. */
    record Result(int exitCode, String out, String err) {
        JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (IOException e) {
                throw new AssertionError("stdout is not JSON: " + out + "\nstderr: " + err, e);
            }
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** The jar built by {@code package}, or the one {@code -Dlodestar.cli.jar} names (e.g. an older build). */
    static Path jar() {
        String given = System.getProperty("lodestar.cli.jar");
        if (given != null && !given.isBlank()) {
            return Path.of(given).toAbsolutePath();
        }
        return built("lodestar-cli-.*\\.jar");
    }

    /** The distribution archive built by {@code package} ({@code lodestar-<version>.tar.gz}). */
    static Path distribution() {
        return built("lodestar-[0-9].*\\.tar\\.gz");
    }

    private static Path built(String name) {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            return files.filter(p -> p.getFileName().toString().matches(name))
                    .filter(p -> !p.getFileName().toString().contains("sources"))
                    .findFirst().orElseThrow(() -> new AssertionError("no target/" + name
                            + ": run the integration tests with `verify`, after `package`"))
                    .toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> command(List<String> args) {
        Path jar = jar();
        List<String> command = new ArrayList<>(jvm());
        Path classes = archive(jar);
        if (classes != null) {
            command.add("-XX:SharedArchiveFile=" + classes);
        }
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(args);
        return command;
    }

    /**
     * A short-lived tool: the C1 compiler and the serial collector start faster and cost the shared CI box less;
     * the class-data archive's own messages are off (a stale one is ignored, never printed about).
     */
    private static List<String> jvm() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }

    /**
     * The classes a CLI run loads, archived once per jar as {@code bin/lodestar} archives them for its users: every
     * later run maps them instead of loading and verifying them again, which the hundreds of runs of the CLI tests
     * feel. Made by one run that loads what most do (the options, a connection attempt that fails at once); null
     * when it could not be made (runs then load their classes as usual).
     */
    private static synchronized Path archive(Path jar) {
        try {
            String key = Integer.toHexString(jar.hashCode()) + "-" + Long.toHexString(Files.getLastModifiedTime(jar)
                    .toMillis());
            Path archive = Path.of("target", "cli-it-" + key + ".jsa").toAbsolutePath();
            if (!Files.exists(archive)) {
                List<String> make = new ArrayList<>(jvm());
                make.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-jar", jar.toString(), "--uri",
                        "redis://127.0.0.1:1", "--timeout", "1s", "services"));
                Process process = new ProcessBuilder(make).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
            return Files.exists(archive) ? archive : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The command line for {@code sh -c} (or util-linux {@code script -c}): each word in single quotes. */
    static String shellLine(List<String> command) {
        return command.stream().map(arg -> "'" + arg.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
    }

    static Result run(Map<String, String> env, String stdin, String... args) {
        return exec(command(List.of(args)), env, stdin);
    }

    /**
     * Runs a command line that ends in the CLI's arguments (the jar's, or the distribution's launcher's) with the
     * user's Lodestar environment cleared and {@code env} set; bounded by {@link #TIMEOUT_SECONDS}.
     */
    static Result exec(List<String> command, Map<String, String> env, String stdin) {
        String args = String.join(" ", command);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("LODESTAR_REDIS_URI");
        builder.environment().remove("LODESTAR_NAMESPACE");
        builder.environment().remove("LODESTAR_CONFIG_KEYSET");
        builder.environment().putAll(env);
        try {
            Path out = Files.createTempFile("lodestar-cli", ".out");
            Path err = Files.createTempFile("lodestar-cli", ".err");
            try {
                Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                try {
                    process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
                    process.getOutputStream().close();
                    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                        throw new AssertionError(args + " still running after "
                                + TIMEOUT_SECONDS + " s; stderr so far: " + Files.readString(err));
                    }
                } finally {
                    process.destroyForcibly();
                }
                return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
