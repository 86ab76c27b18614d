package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.ServiceInstance;

import java.util.random.RandomGenerator;

/**
 * Splits traffic between canary instances (those tagged, by default, with metadata {@code canary=true}) and the
 * others. A request goes to the canaries when it carries the hint attribute (e.g. header {@code X-Canary: true}),
 * or else with the configured probability: drawn from the balancer's random generator (deterministic with a seed),
 * or, with {@link #stickyBy(String)}, from a hash of a request attribute such as a user id, so one user always
 * lands on the same side.
 *
 * <p>Immutable; every method returns a new routing. Added to a balancer with
 * {@link LoadBalancers.Builder#canary(CanaryRouting)}, it splits the candidates at that point of the selector chain:
 * selectors added before run on all candidates, selectors added after run within each side. Both sides are
 * prepared once per instance list, so the per-request decision costs one attribute lookup and at most one random
 * number. When the chosen side has no candidate the request goes to the other side (a canary release with no
 * canary left, or one that replaced every instance, keeps working); only when both are empty does the
 * {@link EmptyPolicy} apply.
 */
public final class CanaryRouting {
    /** The default metadata key that tags a canary instance. */
    public static final String DEFAULT_KEY = "canary";
    /** The default metadata value that tags a canary instance. */
    public static final String DEFAULT_VALUE = "true";
    /** The percentage resolution: 10 000 buckets, i.e. 0.01 %. */
    static final int BUCKETS = 10_000;

    private final String key;
    private final String value;
    private final int basisPoints;
    private final String hintAttribute;
    private final String hintValue;
    private final String stickyAttribute;

    private CanaryRouting(String key, String value, int basisPoints, String hintAttribute, String hintValue,
                          String stickyAttribute) {
        this.key = key;
        this.value = value;
        this.basisPoints = basisPoints;
        this.hintAttribute = hintAttribute;
        this.hintValue = hintValue;
        this.stickyAttribute = stickyAttribute;
    }

    /**
     * Canaries are the instances with metadata {@code canary=true}; no traffic goes to them until
     * {@link #percent(double)} or {@link #hint(String, String)} says so.
     *
     * @return the routing
     */
    public static CanaryRouting byMetadata() {
        return new CanaryRouting(DEFAULT_KEY, DEFAULT_VALUE, 0, null, null, null);
    }

    /**
     * Canaries are the instances whose metadata {@code key} equals {@code value}, e.g.
     * {@code byMetadata("version", "2.0")}.
     *
     * @param key   a metadata key
     * @param value the value that marks a canary
     * @return the routing
     * @throws InvalidArgumentException when {@code key} or {@code value} is null or empty
     */
    public static CanaryRouting byMetadata(String key, String value) {
        Validation.collector().check(key != null && !key.isEmpty(), "canary.key", key, "a non-empty metadata key")
                .check(value != null && !value.isEmpty(), "canary.value", value, "a non-empty string")
                .throwIfInvalid();
        return new CanaryRouting(key, value, 0, null, null, null);
    }

    /**
     * @param percent the share of requests without a hint that go to the canaries, 0-100, resolution 0.01
     * @return a copy with that share
     * @throws InvalidArgumentException when {@code percent} is outside 0-100 or not a number
     */
    public CanaryRouting percent(double percent) {
        Validation.collector().check(percent >= 0 && percent <= 100, "canary.percent", percent,
                "between 0 and 100").throwIfInvalid();
        return new CanaryRouting(key, value, (int) Math.round(percent * (BUCKETS / 100)), hintAttribute, hintValue,
                stickyAttribute);
    }

    /** @return the share of unhinted requests sent to canaries, in percent */
    public double percent() {
        return basisPoints / (double) (BUCKETS / 100);
    }

    /**
     * Sends every request whose attribute {@code attribute} equals {@code value} to the canaries, e.g.
     * {@code hint("X-Canary", "true")}.
     *
     * @param attribute the request attribute (header) name
     * @param value     the value that asks for a canary
     * @return a copy with that hint
     * @throws InvalidArgumentException when {@code attribute} or {@code value} is null or empty
     */
    public CanaryRouting hint(String attribute, String value) {
        Validation.collector()
                .check(attribute != null && !attribute.isEmpty(), "canary.hintAttribute", attribute,
                        "a non-empty string")
                .check(value != null && !value.isEmpty(), "canary.hintValue", value, "a non-empty string")
                .throwIfInvalid();
        return new CanaryRouting(key, this.value, basisPoints, attribute, value, stickyAttribute);
    }

    /**
     * Decides the percentage from a hash of the request attribute {@code attribute} (e.g. a user id) rather than at
     * random, so the same value always gets the same answer, in every process. Requests without the attribute are
     * decided at random.
     *
     * @param attribute the request attribute to hash
     * @return a copy that buckets by that attribute
     * @throws InvalidArgumentException when {@code attribute} is null or empty
     */
    public CanaryRouting stickyBy(String attribute) {
        Validation.collector().check(attribute != null && !attribute.isEmpty(), "canary.stickyAttribute", attribute,
                "a non-empty string").throwIfInvalid();
        return new CanaryRouting(key, value, basisPoints, hintAttribute, hintValue, attribute);
    }

    /** @return the metadata key that tags a canary */
    public String key() {
        return key;
    }

    /** @return the metadata value that tags a canary */
    public String value() {
        return value;
    }

    /** @return whether {@code instance} is a canary */
    boolean isCanary(ServiceInstance instance) {
        return value.equals(instance.metadata(key));
    }

    /** The per-request decision: no allocation, at most one random number. */
    boolean routeToCanary(RequestContext context, RandomGenerator random) {
        if (hintAttribute != null && hintValue.equals(context.attribute(hintAttribute))) {
            return true;
        }
        if (basisPoints == 0) {
            return false;
        }
        if (basisPoints == BUCKETS) {
            return true;
        }
        if (stickyAttribute != null) {
            String sticky = context.attribute(stickyAttribute);
            if (sticky != null) {
                return bucket(sticky) < basisPoints;
            }
        }
        return random.nextInt(BUCKETS) < basisPoints;
    }

    /** A stable bucket for a value: String.hashCode (specified, so equal in every JVM) spread by MurmurHash3's mix. */
    static int bucket(String sticky) {
        int h = sticky.hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return Integer.remainderUnsigned(h, BUCKETS);
    }

    /** @return the stage criterion of one side, e.g. {@code canary=true} or {@code canary!=true} */
    String criterion(boolean canarySide) {
        return key + (canarySide ? "=" : "!=") + value;
    }

    @Override
    public String toString() {
        return "CanaryRouting[" + key + "=" + value + ", percent=" + percent()
                + (hintAttribute == null ? "" : ", hint=" + hintAttribute + ":" + hintValue)
                + (stickyAttribute == null ? "" : ", stickyBy=" + stickyAttribute) + "]";
    }
}
