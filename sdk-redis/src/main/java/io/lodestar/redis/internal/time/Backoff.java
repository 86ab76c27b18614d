package io.lodestar.redis.internal.time;

import java.util.random.RandomGenerator;

/**
 * Exponential backoff with "equal jitter": attempt {@code n} waits a random time between half and all of
 * {@code min(max, base × 2ⁿ)}. Half is kept so a retry never comes at once; the other half is random so a crowd of
 * clients that failed together (a Redis restart) does not come back together.
 *
 * @param baseMillis the bound of the first attempt (attempt 0), at least 1
 * @param maxMillis  the bound no attempt exceeds, at least {@code baseMillis}
 */
public record Backoff(long baseMillis, long maxMillis) {

    public Backoff {
        if (baseMillis < 1 || maxMillis < baseMillis) {
            throw new IllegalArgumentException("backoff must have 1 <= base <= max, but was base " + baseMillis
                    + " ms, max " + maxMillis + " ms");
        }
    }

    /** The bound of attempt {@code attempt} (0 for the first), before jitter. */
    public long boundMillis(int attempt) {
        int shift = Math.max(0, Math.min(attempt, 62 - (63 - Long.numberOfLeadingZeros(baseMillis))));
        return Math.min(maxMillis, baseMillis << shift);
    }

    /** The delay before attempt {@code attempt}: between half of its bound and all of it. */
    public long delayMillis(int attempt, RandomGenerator random) {
        long bound = boundMillis(attempt);
        return bound / 2 + random.nextLong(bound - bound / 2 + 1);
    }
}
