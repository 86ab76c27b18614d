package io.lodestar.jmh;

import io.lettuce.core.api.sync.RedisCommands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a stretch of a benchmark cost Redis itself: {@code INFO commandstats} (calls and microseconds per command,
 * the commands a script runs counted under their own names) and {@code INFO cpu}, read before and after it. The
 * difference is the stretch's, with no {@code CONFIG RESETSTAT}, so a server given by {@code LODESTAR_REDIS_URI}
 * keeps its statistics; the {@code INFO} calls of the reading itself show up as {@code info} and are no part of
 * any script.
 *
 * @param commands   command (as Redis names it, e.g. {@code evalsha}, {@code config|resetstat}) -> {calls, usec}
 * @param cpuSeconds the server's used_cpu_user + used_cpu_sys
 */
record RedisStats(Map<String, long[]> commands, double cpuSeconds) {

    /** Reads the server's statistics now. */
    static RedisStats read(RedisCommands<String, String> redis) {
        Map<String, long[]> commands = commandStats(redis.info("commandstats"));
        return new RedisStats(commands, cpuSeconds(redis.info("cpu")));
    }

    /** @return e.g. {@code 7.0.15 /usr/bin/redis-server}: the version and executable of the server */
    static String server(RedisCommands<String, String> redis) {
        String info = redis.info("server");
        return field(info, "redis_version") + " " + field(info, "executable");
    }

    /**
     * Appends one JSON line to {@code file}: the benchmark, its threads, the server, what Redis did between
     * {@code before} and {@code after} (commands with no call in between left out), and {@code extra} numbers.
     */
    static void append(Path file, String benchmark, int threads, String server, RedisStats before,
                       RedisStats after, Map<String, Long> extra) {
        StringBuilder line = new StringBuilder("{\"benchmark\":").append(RawRedis.quote(benchmark))
                .append(",\"threads\":").append(threads)
                .append(",\"server\":").append(RawRedis.quote(server))
                .append(String.format(Locale.ROOT, ",\"redisCpuSeconds\":%.6f", after.cpuSeconds - before.cpuSeconds));
        extra.forEach((name, value) -> line.append(',').append(RawRedis.quote(name)).append(':').append(value));
        line.append(",\"commands\":{");
        String separator = "";
        for (Map.Entry<String, long[]> command : after.commands.entrySet()) {
            long[] was = before.commands.getOrDefault(command.getKey(), new long[2]);
            long calls = command.getValue()[0] - was[0];
            if (calls == 0) {
                continue;
            }
            line.append(separator).append(RawRedis.quote(command.getKey())).append(":{\"calls\":").append(calls)
                    .append(",\"usec\":").append(command.getValue()[1] - was[1]).append('}');
            separator = ",";
        }
        line.append("}}\n");
        try {
            Files.writeString(file, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "unknown";
    }

    private static double cpuSeconds(String info) {
        double total = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return total;
    }

    /** {@code cmdstat_evalsha:calls=12,usec=345,...} lines: command -> {calls, usec}. */
    private static Map<String, long[]> commandStats(String info) {
        Map<String, long[]> commands = new LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            long[] stats = new long[2];
            for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                String[] pair = field.split("=");
                if (pair[0].equals("calls")) {
                    stats[0] = Long.parseLong(pair[1]);
                } else if (pair[0].equals("usec")) {
                    stats[1] = Long.parseLong(pair[1]);
                }
            }
            commands.put(command, stats);
        }
        return commands;
    }
}
