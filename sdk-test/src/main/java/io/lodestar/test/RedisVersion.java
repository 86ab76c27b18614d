package io.lodestar.test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Redis version, compared numerically ({@code 7.0.15 < 7.2.4 < 10.0.0}). */
record RedisVersion(int major, int minor, int patch) implements Comparable<RedisVersion> {

    /** The oldest version the SDK supports: sharded PubSub (SPUBLISH/SSUBSCRIBE) arrived in 7.0. */
    static final RedisVersion FLOOR = new RedisVersion(7, 0, 0);

    private static final Pattern NUMBERS = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?");
    private static final Pattern SERVER_BANNER = Pattern.compile("v=(\\d+\\.\\d+(?:\\.\\d+)?)");

    /**
     * Parses {@code 7.0.15} (or {@code 7.2}).
     *
     * @throws IllegalArgumentException if the text holds no version
     */
    static RedisVersion parse(String text) {
        Matcher m = NUMBERS.matcher(text == null ? "" : text.trim());
        if (!m.lookingAt()) {
            throw new IllegalArgumentException("Redis version must look like 7.0.15, but was '" + text + "'");
        }
        return new RedisVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
    }

    /**
     * Parses the output of {@code redis-server --version}
     * ({@code Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=…}).
     *
     * @throws IllegalArgumentException if the output holds no {@code v=} field
     */
    static RedisVersion parseServerBanner(String output) {
        Matcher m = SERVER_BANNER.matcher(output == null ? "" : output);
        if (!m.find()) {
            throw new IllegalArgumentException(
                    "redis-server --version must print 'v=<version>', but printed '" + output + "'");
        }
        return parse(m.group(1));
    }

    boolean isSupported() {
        return compareTo(FLOOR) >= 0;
    }

    @Override
    public int compareTo(RedisVersion other) {
        int c = Integer.compare(major, other.major);
        if (c == 0) {
            c = Integer.compare(minor, other.minor);
        }
        return c != 0 ? c : Integer.compare(patch, other.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
