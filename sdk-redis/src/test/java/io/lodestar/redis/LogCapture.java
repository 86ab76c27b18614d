package io.lodestar.redis;

import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.simple.SimpleLogger;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the tests' logger (slf4j-simple, which writes to whatever {@link System#err} is when it logs) printed while
 * the capture was open; still printed to the console too. Tests in a module run one at a time, so the lines are
 * this test's, and its threads': where a class runs some of its tests at the same time
 * ({@code @Execution(CONCURRENT)}, see junit-platform.properties), they hold {@code Resources.SYSTEM_ERR} to read
 * and the test that captures holds it to write, so it never runs beside them.
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

    /**
     * Turns every logger that exists now (Lodestar's and Lettuce's, once a test has used them) to DEBUG until
     * closed: slf4j-simple reads its levels once, so this sets its loggers' level field.
     */
    static Debug debug() {
        return new Debug();
    }

    /** Loggers at DEBUG until closed. */
    static final class Debug implements AutoCloseable {
        private static final int DEBUG = 10; // SimpleLogger's LOG_LEVEL_DEBUG
        private final Map<Logger, Integer> levels = new HashMap<>();

        @SuppressWarnings("unchecked")
        private Debug() {
            try {
                ILoggerFactory factory = LoggerFactory.getILoggerFactory();
                Field map = factory.getClass().getDeclaredField("loggerMap");
                map.setAccessible(true);
                for (Logger logger : ((Map<String, Logger>) map.get(factory)).values()) {
                    levels.put(logger, swap(logger, DEBUG));
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("slf4j-simple changed: cannot set its levels", e);
            }
        }

        private static int swap(Logger logger, int level) throws ReflectiveOperationException {
            Field field = SimpleLogger.class.getDeclaredField("currentLogLevel");
            field.setAccessible(true);
            int before = field.getInt(logger);
            field.setInt(logger, level);
            return before;
        }

        @Override
        public void close() {
            levels.forEach((logger, level) -> {
                try {
                    swap(logger, level);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
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
