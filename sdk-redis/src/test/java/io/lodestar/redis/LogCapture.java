package io.lodestar.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * What the tests' logger (slf4j-simple, which writes to whatever {@link System#err} is when it logs) printed while
 * the capture was open; still printed to the console too. Tests in a module run one at a time, so the lines are
 * this test's, and its threads'.
 */
final class LogCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private LogCapture() {
        System.setErr(new PrintStream(new Tee(original, captured), true, StandardCharsets.UTF_8));
    }

    static LogCapture start() {
        return new LogCapture();
    }

    /** The lines at {@code level} ("WARN", "INFO", …) that contain every one of {@code parts}. */
    List<String> lines(String level, String... parts) {
        return linesSince(0).stream().filter(line -> line.contains(" " + level + " "))
                .filter(line -> Arrays.stream(parts).allMatch(line::contains)).toList();
    }

    /** Where the capture is now, for {@link #linesSince}: what a test's "when" logs, without its "given". */
    int mark() {
        synchronized (captured) {
            return captured.size();
        }
    }

    /** The lines printed since {@code mark}. */
    List<String> linesSince(int mark) {
        byte[] bytes;
        synchronized (captured) {
            bytes = captured.toByteArray();
        }
        return new String(bytes, mark, bytes.length - mark, StandardCharsets.UTF_8).lines().toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }

    private static final class Tee extends OutputStream {
        private final OutputStream console;
        private final ByteArrayOutputStream copy;

        Tee(OutputStream console, ByteArrayOutputStream copy) {
            this.console = console;
            this.copy = copy;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            synchronized (copy) {
                copy.write(bytes, offset, length);
            }
            try {
                console.write(bytes, offset, length);
            } catch (IOException e) {
                // the console is best effort; the copy is what the test reads
            }
        }

        @Override
        public void flush() throws IOException {
            console.flush();
        }
    }
}
