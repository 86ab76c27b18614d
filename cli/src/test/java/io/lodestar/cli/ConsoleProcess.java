package io.lodestar.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * {@code lodestar console} from the real jar on a free port: waits (bounded) for the address it prints, keeps what
 * it prints (the audit log), and on {@link #close()} stops it and everything it started.
 */
final class ConsoleProcess implements AutoCloseable {
    private static final Pattern ADDRESS = Pattern.compile("(https?://\\S+/)");
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final String url;
    private final Thread stopOnExit;

    ConsoleProcess(String redisUri, String namespace, String... extra) {
        this(Map.of(), redisUri, namespace, extra);
    }

    /** With these environment variables (e.g. a token) set for the console. */
    ConsoleProcess(Map<String, String> env, String redisUri, String namespace, String... extra) {
        List<String> args = new ArrayList<>(List.of("--uri", redisUri, "--namespace", namespace, "console",
                "--port", "0"));
        args.addAll(List.of(extra));
        try {
            ProcessBuilder builder = new ProcessBuilder(CliJar.command(args)).redirectErrorStream(true);
            builder.environment().keySet().removeIf(name -> name.startsWith("LODESTAR_CONSOLE_")
                    || name.equals(LodestarCli.KEYSET_VARIABLE));
            builder.environment().putAll(env);
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // if the test JVM is stopped before close() (a fork timeout), the console goes with it
        stopOnExit = new Thread(() -> {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }, "console-stop");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                }
            } catch (IOException ended) {
                // the process was stopped
            }
        }, "console-output");
        reader.setDaemon(true);
        reader.start();
        try {
            url = await("the console's address").atMost(Duration.ofSeconds(60)).until(() -> {
                Matcher matcher = ADDRESS.matcher(output());
                if (!process.isAlive() && !matcher.find(0)) {
                    throw new AssertionError("the console exited with " + process.exitValue() + ":\n" + output());
                }
                return matcher.find(0) ? matcher.group(1) : null;
            }, value -> value != null);
        } catch (RuntimeException | AssertionError e) {
            close();
            throw e;
        }
    }

    String url() {
        return url;
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** The token the console printed, when it made one. */
    String printedToken() {
        Matcher matcher = Pattern.compile("Token \\(paste[^:]*: (\\S+)").matcher(output());
        if (!matcher.find()) {
            throw new AssertionError("no token printed:\n" + output());
        }
        return matcher.group(1);
    }

    @Override
    public void close() {
        Processes.stop(process);
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: nothing left to do
        }
    }
}
