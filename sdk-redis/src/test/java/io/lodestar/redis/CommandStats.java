package io.lodestar.redis;

import io.lettuce.core.api.sync.RedisCommands;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a Redis's {@code INFO commandstats} says: the calls it served per command since its start or a RESETSTAT. */
final class CommandStats {
    /** {@code cmdstat_<command>:calls=<n>,…}; a subcommand reads {@code cluster|nodes}. */
    private static final Pattern STAT = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)");

    private CommandStats() {
    }

    /** Calls per command (commands never called are absent). */
    static Map<String, Long> calls(RedisCommands<String, String> redis) {
        Map<String, Long> calls = new TreeMap<>();
        Matcher stat = STAT.matcher(redis.info("commandstats"));
        while (stat.find()) {
            calls.put(stat.group(1), Long.parseLong(stat.group(2)));
        }
        return calls;
    }
}
