package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.internal.Validation;

import java.time.Duration;

/**
 * Holds back an instance list that looks like a mass deregistration (a bug, a flushed database, a network split
 * that expired every TTL): when a new list has fewer than {@link #minPercent()} % of the instances of the list
 * being served, the balancer keeps serving the previous list for up to {@link #maxHold()}, logs a warning and
 * counts it ({@link LoadBalancer#protectionTriggers()}). A list above the threshold ends the hold at once; when
 * the hold time is used up, the new list is accepted whatever it holds. Later suspicious lists during one
 * incident do not extend the hold.
 *
 * <p>The price: for up to {@code maxHold}, instances that really went away may still be chosen; callers need
 * retries for that case anyway. Immutable.
 */
public final class ProtectionPolicy {
    /** Default {@link #minPercent()}: a list with less than half of the instances is held back. */
    public static final int DEFAULT_MIN_PERCENT = 50;
    /** Default {@link #maxHold()}. */
    public static final Duration DEFAULT_MAX_HOLD = Duration.ofSeconds(30);

    private final int minPercent;
    private final Duration maxHold;

    private ProtectionPolicy(int minPercent, Duration maxHold) {
        this.minPercent = minPercent;
        this.maxHold = maxHold;
    }

    /**
     * @return a policy that holds back lists with less than {@value #DEFAULT_MIN_PERCENT} % of the instances for up
     *     to {@link #DEFAULT_MAX_HOLD}
     */
    public static ProtectionPolicy defaults() {
        return new ProtectionPolicy(DEFAULT_MIN_PERCENT, DEFAULT_MAX_HOLD);
    }

    /**
     * @param minPercent a new list with fewer than this share of the served list's instances is held back, 1-100
     * @param maxHold    how long at most the previous list is served instead; positive
     * @return the policy
     * @throws InvalidArgumentException naming every invalid argument
     */
    public static ProtectionPolicy holdBelow(int minPercent, Duration maxHold) {
        Validation.collector().range("minPercent", minPercent, 1, 100).positive("maxHold", maxHold)
                .throwIfInvalid();
        return new ProtectionPolicy(minPercent, maxHold);
    }

    /** @return the share of the served list's instance count below which a new list is held back, in percent */
    public int minPercent() {
        return minPercent;
    }

    /** @return how long at most a suspicious list is held back */
    public Duration maxHold() {
        return maxHold;
    }

    /** @return {@link #maxHold()} in milliseconds, saturated for durations beyond what a long holds */
    long maxHoldMillis() {
        try {
            return maxHold.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /** @return whether going from {@code served} to {@code offered} instances is suspicious */
    boolean suspicious(int served, int offered) {
        return served > 0 && (long) offered * 100 < (long) served * minPercent;
    }

    @Override
    public String toString() {
        return "ProtectionPolicy[minPercent=" + minPercent + ", maxHold=" + maxHold + "]";
    }
}
