package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.internal.Validation;

import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;

/**
 * Builds {@link LoadBalancer}s:
 *
 * <pre>{@code
 * LoadBalancer balancer = LoadBalancers.weightedRandom()
 *         .selector(Selectors.zonePreference("eu-1"))
 *         .onEmpty(EmptyPolicy.FAIL)
 *         .build();
 * ServiceInstance target = balancer.choose(discovery.getInstances("orders"));
 * }</pre>
 *
 * <p>A balancer runs, in this order: the selectors and the canary split in the order added (with
 * {@link Selectors#healthyOnly()} first unless a status selector was added), the exclusion of weight 0, then the
 * strategy. Use one balancer per service: it caches the preparation of the last list it saw.
 */
public final class LoadBalancers {
    private LoadBalancers() {
    }

    /** @return a builder for {@link Strategy#WEIGHTED_RANDOM}, the usual choice */
    public static Builder weightedRandom() {
        return builder(Strategy.WEIGHTED_RANDOM);
    }

    /** @return a builder for {@link Strategy#WEIGHTED_ROUND_ROBIN}, nginx's smooth weighted round robin */
    public static Builder weightedRoundRobin() {
        return builder(Strategy.WEIGHTED_ROUND_ROBIN);
    }

    /** @return a builder for {@link Strategy#ROUND_ROBIN} */
    public static Builder roundRobin() {
        return builder(Strategy.ROUND_ROBIN);
    }

    /** @return a builder for {@link Strategy#RANDOM} */
    public static Builder random() {
        return builder(Strategy.RANDOM);
    }

    /**
     * @param strategy the strategy, e.g. from a configuration property
     * @return a builder for it; {@link Builder#build()} rejects a null strategy
     */
    public static Builder builder(Strategy strategy) {
        return new Builder(strategy);
    }

    /**
     * Configures a {@link LoadBalancer}. Setters only store; {@link #build()} checks everything and reports every
     * problem at once. A builder may be reused; each {@code build()} returns an independent balancer.
     */
    public static final class Builder {
        private final Strategy strategy;
        private final List<Object> chain = new ArrayList<>();
        private EmptyPolicy onEmpty = EmptyPolicy.FAIL;
        private Long seed;
        private RandomGenerator random;
        private boolean randomSet;
        private InstantSource clock = Clock.systemUTC();
        private Duration slowStart;
        private boolean slowStartSet;
        private ProtectionPolicy protection;
        private boolean protectionSet;
        private String serviceId;
        private boolean serviceIdSet;

        private Builder(Strategy strategy) {
            this.strategy = strategy;
        }

        /**
         * Names the service in failure messages and logs. Optional: by default the name is taken from the
         * instances.
         *
         * @param serviceId the service
         * @return this builder
         */
        public Builder serviceId(String serviceId) {
            this.serviceId = serviceId;
            this.serviceIdSet = true;
            return this;
        }

        /**
         * Adds a selector after those added so far. Without any status selector, {@link Selectors#healthyOnly()}
         * runs first.
         *
         * @param selector the selector, e.g. {@link Selectors#zonePreference(String)}
         * @return this builder
         */
        public Builder selector(Selector selector) {
            chain.add(selector == null ? NullStage.NULL : selector);
            return this;
        }

        /**
         * Splits traffic between canary and other instances at this point of the selector chain: selectors added
         * before apply to both sides, selectors added after apply within each side. At most once.
         *
         * @param canary the routing
         * @return this builder
         */
        public Builder canary(CanaryRouting canary) {
            chain.add(canary == null ? NullStage.NULL_CANARY : canary);
            return this;
        }

        /**
         * @param onEmpty what to do when the selectors leave nothing; default {@link EmptyPolicy#FAIL}
         * @return this builder
         */
        public Builder onEmpty(EmptyPolicy onEmpty) {
            this.onEmpty = onEmpty;
            return this;
        }

        /**
         * Makes every random decision (weighted and uniform picks, canary percentage) reproducible, and starts
         * round-robin cycles at their beginning. Uses a {@link Random}, which is thread-safe but shared by all
         * callers: for tests and reproductions, not for hot production paths.
         *
         * @param seed the seed
         * @return this builder
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Draws random decisions from this generator instead of the calling thread's {@code ThreadLocalRandom}, and
         * starts round-robin cycles at their beginning. It is called from every calling thread, so it must be
         * thread-safe when the balancer is shared.
         *
         * @param random the generator
         * @return this builder
         */
        public Builder random(RandomGenerator random) {
            this.random = random;
            this.randomSet = true;
            return this;
        }

        /**
         * @param clock the time source for slow start and protection; default the system clock
         * @return this builder
         */
        public Builder clock(InstantSource clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Ramps a newly registered instance's weight up linearly, from 1 % at its
         * {@link io.lodestar.core.model.ServiceInstance#registeredAt() registeredAt} to 100 % after {@code window},
         * in whole-percent steps. While any instance ramps, the balancer rebuilds its table at most once per second
         * (and at most 100 times per window). Instances without {@code registeredAt} get their full weight.
         * Only for weighted strategies.
         *
         * @param window the ramp duration, positive, at most one day
         * @return this builder
         */
        public Builder slowStart(Duration window) {
            this.slowStart = window;
            this.slowStartSet = true;
            return this;
        }

        /**
         * @param protection holds back suspicious mass deregistrations; none by default
         * @return this builder
         */
        public Builder protection(ProtectionPolicy protection) {
            this.protection = protection;
            this.protectionSet = true;
            return this;
        }

        /**
         * @return a new, thread-safe balancer
         * @throws InvalidArgumentException naming every invalid setting: a null strategy, selector, policy, clock or
         *                                  generator; a second canary split; both a seed and a generator; slow start
         *                                  with an unweighted strategy or a window that is not positive or over a day
         */
        public LoadBalancer build() {
            Validation.Collector checks = Validation.collector().notNull("strategy", strategy);
            List<Selector> before = new ArrayList<>();
            List<Selector> after = new ArrayList<>();
            CanaryRouting canary = null;
            boolean hasStatus = false;
            for (int i = 0; i < chain.size(); i++) {
                Object stage = chain.get(i);
                if (stage == NullStage.NULL) {
                    checks.notNull("selectors[" + i + "]", null);
                } else if (stage == NullStage.NULL_CANARY) {
                    checks.notNull("canary", null);
                } else if (stage instanceof CanaryRouting routing) {
                    checks.check(canary == null, "canary", routing, "set at most once");
                    canary = canary == null ? routing : canary;
                } else {
                    Selector selector = (Selector) stage;
                    hasStatus |= selector instanceof StatusSelector;
                    (canary == null ? before : after).add(selector);
                }
            }
            checks.notNull("onEmpty", onEmpty).notNull("clock", clock);
            if (randomSet) {
                checks.notNull("random", random).check(seed == null, "random", random, "unset when a seed is set");
            }
            if (slowStartSet) {
                checks.positive("slowStart", slowStart);
                checks.check(slowStart == null || slowStart.compareTo(Duration.ofDays(1)) <= 0, "slowStart",
                        slowStart, "at most PT24H");
                checks.check(strategy == null || strategy.weighted(), "strategy", strategy,
                        "WEIGHTED_RANDOM or WEIGHTED_ROUND_ROBIN when slowStart is set");
            }
            if (protectionSet) {
                checks.notNull("protection", protection);
            }
            if (serviceIdSet) {
                checks.serviceId("serviceId", serviceId);
            }
            checks.throwIfInvalid();
            if (!hasStatus) {
                before.add(0, Selectors.healthyOnly());
            }
            RandomGenerator generator = seed != null ? new Random(seed) : random;
            return new PipelineLoadBalancer(strategy, before, canary, after, onEmpty, generator, clock, slowStart,
                    protection, serviceId);
        }

        /** Placeholders that keep a null argument's position until {@link #build()} reports it. */
        private enum NullStage {
            NULL, NULL_CANARY
        }
    }
}
