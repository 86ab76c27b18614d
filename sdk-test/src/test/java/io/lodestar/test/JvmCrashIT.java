package io.lodestar.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** No redis-server outlives its JVM, even when the JVM is SIGKILLed and runs no shutdown hook. */
class JvmCrashIT {

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void aSigkilledJvmTakesItsRedisAndDataDirectoryWithIt() throws Exception {
        // given: a child JVM that started a private server
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), CrashingJvm.class.getName())
                .redirectErrorStream(true)
                .start();
        Queue<String> output = new ConcurrentLinkedQueue<>();
        Thread reader = new Thread(() -> readLines(child, output), "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> output.stream().anyMatch(line -> line.startsWith("READY ")));
            String[] ready = output.stream().filter(line -> line.startsWith("READY ")).findFirst().orElseThrow()
                    .split(" ", 4);
            int port = Integer.parseInt(ready[1]);
            Path dir = Path.of(ready[3]);
            connect(port);

            // when
            child.destroyForcibly();

            // then: the watchdog kills Redis and deletes its directory within about a second
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThatThrownBy(() -> connect(port)).isInstanceOf(ConnectException.class);
                assertThat(Files.exists(dir)).isFalse();
            });
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static void readLines(Process child, Queue<String> output) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                output.add(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void connect(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        }
    }
}
