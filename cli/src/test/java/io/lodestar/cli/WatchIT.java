package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code lodestar watch} in a pseudo-terminal, as an operator runs it: util-linux {@code script} gives the jar a
 * real tty, so it draws full-screen (alternate screen, redraw in place) and must restore the terminal when stopped.
 */
class WatchIT {
    private static final Duration SCREEN = Duration.ofSeconds(30);
    private final String namespace = "watch-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private LodestarClient sdk(RedisServer redis) {
        LodestarClient client = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(namespace)
                .startupMode(StartupMode.OFFLINE).build());
        resources.add(client);
        return client;
    }

    private static void register(LodestarClient sdk, String id, int port) {
        sdk.registry().register(ServiceInstance.builder("orders", id).host("10.0.0.7").port(port)
                .metadata("zone", "eu-1").ttl(Duration.ofSeconds(30)).build());
    }

    @Test
    void redrawsInPlaceOnEveryChangeAndRestoresTheTerminal() {
        RedisServer redis = TestRedis.standalone();
        LodestarClient sdk = sdk(redis);
        register(sdk, "orders-1", 8080);
        Terminal terminal = new Terminal(redis.uri(), namespace, "watch", "orders");
        await("the first frame").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.screen())
                .contains("\u001b[?1049h", "lodestar watch orders", "orders-1", "10.0.0.7:8080", "live"));

        register(sdk, "orders-2", 8081);

        long revision = sdk.directDiscovery().getSnapshot("orders").revision();
        await("a redraw with orders-2").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.screen())
                .contains("orders-2", "10.0.0.7:8081", "orders: orders-2 registered, revision " + revision,
                        "revision " + revision));
        sdk.registry().evict("orders", "orders-1");
        await("a redraw without orders-1").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.lastFrame())
                .contains("orders-1 evicted").doesNotContain("10.0.0.7:8080"));

        terminal.interrupt();

        await("the terminal restored").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.screen())
                .contains("\u001b[?25h\u001b[?1049l"));
    }

    @Test
    void followsTheConfigsWhenAsked() {
        RedisServer redis = TestRedis.standalone();
        LodestarClient sdk = sdk(redis);
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        Terminal terminal = new Terminal(redis.uri(), namespace, "watch", "--configs");
        await("the first frame").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.lastFrame())
                .contains("lodestar watch configs", "orders/limits", "yaml", "live"));

        sdk.config().set("orders/limits", "max-requests: 5", ConfigFormat.YAML);

        await("the change").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.lastFrame())
                .contains("orders/limits: changed, version 2"));
        sdk.config().rollback("orders/limits", 1);
        await("the rollback, said as one").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.lastFrame())
                .contains("orders/limits: rolled back to the content of version 1, version 3"));
    }

    @ParameterizedTest
    @EnumSource(RedisFault.class)
    void showsHowStaleItsViewIsWhileRedisIsUnreachableAndLiveWhenItAnswersAgain(RedisFault fault) {
        RedisServer redis = TestRedis.startStandalone();
        resources.add(redis);
        LodestarClient sdk = sdk(redis);
        register(sdk, "orders-1", 8080);
        Terminal terminal = new Terminal(redis.uri(), namespace, "watch");
        await("the services").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.lastFrame())
                .contains("orders", "live"));

        fault.begin(redis);
        try {
            await("the stale banner").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.lastFrame())
                    .contains("STALE", "Redis unreachable (trying " + LodestarOptions.redact(redis.uri()) + ")")
                    .contains("orders"));
        } finally {
            fault.end(redis);
        }

        await("live again").atMost(SCREEN).untilAsserted(() -> assertThat(terminal.lastFrame())
                .contains("live").doesNotContain("STALE"));
    }

    /** The jar under {@code script -qfc}, its screen kept as bytes arrive. */
    private final class Terminal implements AutoCloseable {
        private final Process process;
        private final StringBuffer screen = new StringBuffer();

        Terminal(String redisUri, String namespace, String... args) {
            Path script = Path.of("/usr/bin/script");
            Assumptions.assumeTrue(Files.isExecutable(script), "util-linux `script` is missing: it gives `watch` a"
                    + " pseudo-terminal (Debian package bsdutils)");
            List<String> command = new ArrayList<>(List.of("--uri", redisUri, "--namespace", namespace));
            command.addAll(List.of(args));
            // Ctrl-C must reach the JVM as it does from a terminal, also when the build runs in the background
            // (a shell's background jobs start with SIGINT ignored, which the JVM would inherit and keep)
            String line = "env --default-signal=INT " + CliJar.shellLine(CliJar.command(command));
            ProcessBuilder builder = new ProcessBuilder(script.toString(), "-qfec", line, "/dev/null")
                    .redirectErrorStream(true);
            builder.environment().put("TERM", "xterm-256color");
            try {
                process = builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            resources.add(this);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }, "watch-stop"));
            Thread reader = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try (InputStream in = process.getInputStream()) {
                    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                        screen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    }
                } catch (IOException ended) {
                    // stopped
                }
            }, "watch-screen");
            reader.setDaemon(true);
            reader.start();
        }

        String screen() {
            return screen.toString();
        }

        /** What the last complete redraw (cursor home ... clear below) put on the screen. */
        String lastFrame() {
            String all = screen();
            int end = all.lastIndexOf("\u001b[J");
            int start = end < 0 ? -1 : all.lastIndexOf("\u001b[H", end);
            return start < 0 ? "" : all.substring(start, end);
        }

        /** Ctrl-C: SIGINT to the watched program (script passes the signal on as a terminal would). */
        void interrupt() {
            process.descendants().filter(handle -> handle.info().command().orElse("").endsWith("java"))
                    .forEach(handle -> {
                        try {
                            new ProcessBuilder("kill", "-INT", String.valueOf(handle.pid())).start()
                                    .waitFor(10, TimeUnit.SECONDS);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
        }

        @Override
        public void close() {
            Processes.stop(process);
        }
    }
}
