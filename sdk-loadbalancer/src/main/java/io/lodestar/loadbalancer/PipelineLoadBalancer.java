package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.Violation;
import io.lodestar.core.model.ServiceInstance;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * The one implementation behind {@link LoadBalancers}: selectors, canary split, weight filter and strategy,
 * prepared per instance list.
 *
 * <p>Why it is fast: everything that depends only on the list (selector results, slow-start weights, the alias
 * table or round-robin cycle of each side, the failure message data) lives in one immutable {@link State}, found
 * through one volatile field and keyed by the list's identity. A call compares references, maybe decides the
 * canary side, and asks the prepared {@link Picker}: no lock, no allocation. A new list object builds a new state
 * (off the fast path, O(n)), installed with a compare-and-set; threads that race on the same new list may each
 * build one, which is wasted work but always correct, and happens once per change.
 */
final class PipelineLoadBalancer implements LoadBalancer {
    private static final System.Logger LOG = System.getLogger(LoadBalancer.class.getName());
    private static final VarHandle STATE;
    private static final long NEVER = Long.MAX_VALUE;
    /** Slow start rebuilds at most this often (and at most 100 times per window). */
    static final long MIN_RAMP_REFRESH_MILLIS = 1_000;
    /** Slow start scales weights by this, so a ramp has whole-percent steps. */
    private static final int RAMP_STEPS = 100;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PipelineLoadBalancer.class, "state", State.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Strategy strategy;
    private final Stage[] before;
    private final CanaryRouting canary;
    private final Stage[] after;
    private final EmptyPolicy onEmpty;
    private final RandomGenerator random;
    private final InstantSource clock;
    private final Duration slowStart;
    private final long slowStartMillis;
    private final long rampRefreshMillis;
    private final ProtectionPolicy protection;
    private final String serviceId;
    private final AtomicLong stablePosition;
    private final AtomicLong canaryPosition;
    private final AtomicLong fallbackPosition;
    private final AtomicLong triggers = new AtomicLong();
    /** The preparation of the last list; read directly on the fast path, replaced through {@link #STATE}. */
    private volatile State state;

    PipelineLoadBalancer(Strategy strategy, List<Selector> before, CanaryRouting canary, List<Selector> after,
                         EmptyPolicy onEmpty, RandomGenerator random, InstantSource clock, Duration slowStart,
                         ProtectionPolicy protection, String serviceId) {
        this.strategy = strategy;
        this.before = stages(before, 0);
        this.canary = canary;
        this.after = stages(after, before.size());
        this.onEmpty = onEmpty;
        this.random = random;
        this.clock = clock;
        this.slowStart = slowStart;
        this.slowStartMillis = slowStart == null ? 0 : Math.max(1, slowStart.toMillis());
        this.rampRefreshMillis = Math.max(MIN_RAMP_REFRESH_MILLIS, slowStartMillis / RAMP_STEPS);
        this.protection = protection;
        this.serviceId = serviceId;
        // Seeded: start every cycle at its beginning (reproducible). Otherwise at a random point, so that many
        // clients started together do not all send their first request to the same instance.
        this.stablePosition = new AtomicLong(startPosition());
        this.canaryPosition = new AtomicLong(startPosition());
        this.fallbackPosition = new AtomicLong(startPosition());
    }

    @Override
    public ServiceInstance choose(List<ServiceInstance> instances, RequestContext context) {
        if (instances == null || context == null) {
            throw new InvalidArgumentException(
                    new Violation(instances == null ? "instances" : "context", "null", "non-null"));
        }
        State s = state;
        if (s == null || instances != s.source && (instances != s.heldBack || clock.millis() >= s.holdUntil)) {
            s = update(instances);
        }
        if (s.refreshAt != NEVER && clock.millis() >= s.refreshAt) {
            s = refresh(s);
        }
        RandomGenerator r = random != null ? random : ThreadLocalRandom.current();
        Leaf leaf = s.canary != null && canary.routeToCanary(context, r) ? s.canary : s.stable;
        Picker picker = leaf.picker;
        if (picker == null) {
            throw new NoInstanceAvailableException(s.serviceId, leaf.criteria, s.registered, leaf.counts);
        }
        return picker.pick(r);
    }

    @Override
    public long protectionTriggers() {
        return triggers.get();
    }

    @Override
    public boolean holdingBackUpdate() {
        State s = state;
        return s != null && s.heldBack != null && clock.millis() < s.holdUntil;
    }

    /** Slow path: a list this balancer has not prepared (or a hold that ran out). */
    private State update(List<ServiceInstance> instances) {
        for (;;) {
            State old = state;
            long now = clock.millis();
            if (old != null) {
                if (instances == old.source || instances == old.heldBack && now < old.holdUntil) {
                    return old; // another thread got here first
                }
                if (protection != null && protection.suspicious(old.registered, instances.size())) {
                    boolean incident = old.heldBack == null;
                    long holdUntil = incident ? saturatedAdd(now, protection.maxHoldMillis()) : old.holdUntil;
                    if (now < holdUntil) {
                        State held = old.holding(instances, incident ? now : old.holdSince, holdUntil);
                        if (!STATE.compareAndSet(this, old, held)) {
                            continue;
                        }
                        if (incident) {
                            triggers.incrementAndGet();
                            LOG.log(Level.WARNING, () -> "Holding back an update of '" + old.serviceId + "': it has "
                                    + instances.size() + " of " + old.registered + " instances, below "
                                    + protection.minPercent() + "%; serving the previous list for up to "
                                    + protection.maxHold());
                        }
                        return held;
                    }
                }
            }
            State next = build(instances, now, old, null, 0, 0);
            if (!STATE.compareAndSet(this, old, next)) {
                continue;
            }
            if (old != null && old.heldBack != null) {
                boolean expired = now >= old.holdUntil;
                LOG.log(Level.INFO, () -> "Accepted an update of '" + next.serviceId + "' with " + next.registered
                        + " instances (previously " + old.registered + ") after holding updates back for "
                        + Duration.ofMillis(now - old.holdSince)
                        + (expired ? ": the hold time ran out" : ": the instance count recovered"));
            }
            return next;
        }
    }

    /** Slow start: rebuild the weights of the current list; one thread does it, the others keep the old state. */
    private State refresh(State s) {
        if (!s.refreshing.compareAndSet(false, true)) {
            return s;
        }
        boolean done = false;
        try {
            State next = build(s.source, clock.millis(), s, s.heldBack, s.holdSince, s.holdUntil);
            STATE.compareAndSet(this, s, next);
            done = true;
            return next; // valid for this list whether or not another update has replaced the state meanwhile
        } finally {
            if (!done) {
                s.refreshing.set(false);
            }
        }
    }

    private State build(List<ServiceInstance> list, long now, State previous, List<ServiceInstance> heldBack,
                        long holdSince, long holdUntil) {
        int registered = list.size();
        for (int i = 0; i < registered; i++) {
            if (list.get(i) == null) {
                throw new InvalidArgumentException(new Violation("instances[" + i + "]", "null", "non-null"));
            }
        }
        String service = serviceId != null ? serviceId
                : registered > 0 ? list.get(0).serviceId()
                : previous != null ? previous.serviceId : null;
        Build build = new Build(now);
        Path path = new Path(build);
        List<ServiceInstance> common = path.run(before, Collections.unmodifiableList(list));
        Leaf stable;
        Leaf canarySide = null;
        if (canary == null) {
            stable = path.leaf(path.run(after, common), stablePosition);
        } else {
            Path canaryPath = path.copy();
            List<ServiceInstance> canaries = FilterSelector.filter(common, canary::isCanary);
            List<ServiceInstance> others = FilterSelector.filter(common, instance -> !canary.isCanary(instance));
            canaryPath.split(canary.criterion(true), canaries.size());
            path.split(canary.criterion(false), others.size());
            canarySide = canaryPath.leaf(canaryPath.run(after, canaries), canaryPosition);
            stable = path.leaf(path.run(after, others), stablePosition);
        }
        Picker fallback = null;
        if (onEmpty == EmptyPolicy.FALLBACK_TO_ALL && stable.picker == null
                && (canarySide == null || canarySide.picker == null)) {
            Path all = new Path(build);
            fallback = all.leaf(list, fallbackPosition).picker;
            stable.counts.put("fallback", all.counts.get("weight"));
            if (canarySide != null) {
                canarySide.counts.put("fallback", all.counts.get("weight"));
            }
        }
        Leaf resolvedStable = stable.resolve(canarySide == null ? null : canarySide.picker, fallback);
        Leaf resolvedCanary = canarySide == null ? null : canarySide.resolve(stable.picker, fallback);
        long refreshAt = build.ramping ? saturatedAdd(now, rampRefreshMillis) : NEVER;
        return new State(list, heldBack, holdSince, holdUntil, service, registered, resolvedStable, resolvedCanary,
                refreshAt);
    }

    /**
     * The effective weight: the registered one, or during slow start a linear share of it in whole percent (at
     * least 1 %), scaled by {@value #RAMP_STEPS} so that ramping and settled instances compare exactly.
     */
    private long effectiveWeight(ServiceInstance instance, Build build) {
        long weight = instance.weight();
        if (slowStartMillis == 0 || weight == 0) {
            return weight;
        }
        Instant registeredAt = instance.registeredAt();
        long age = registeredAt == null ? slowStartMillis : build.now - registeredAt.toEpochMilli();
        if (age >= slowStartMillis) {
            return weight * RAMP_STEPS;
        }
        build.ramping = true;
        long percent = Math.max(1, Math.min(RAMP_STEPS, (Math.max(0, age) * RAMP_STEPS + slowStartMillis - 1)
                / slowStartMillis));
        return weight * percent;
    }

    private long startPosition() {
        return random != null ? 0 : ThreadLocalRandom.current().nextLong(1L << 40);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? NEVER : sum;
    }

    private static Stage[] stages(List<Selector> selectors, int offset) {
        Stage[] stages = new Stage[selectors.size()];
        for (int i = 0; i < stages.length; i++) {
            Selector selector = selectors.get(i);
            if (selector instanceof NamedSelector named) {
                stages[i] = new Stage(selector, named.stage(), named.criterion());
            } else {
                String name = "selector" + (offset + i + 1);
                stages[i] = new Stage(selector, name, name);
            }
        }
        return stages;
    }

    @Override
    public String toString() {
        List<String> chain = new ArrayList<>();
        for (Stage stage : before) {
            chain.add(stage.criterion);
        }
        if (canary != null) {
            chain.add(canary.toString());
        }
        for (Stage stage : after) {
            chain.add(stage.criterion);
        }
        return "LoadBalancer[" + strategy + (serviceId == null ? "" : ", serviceId=" + serviceId)
                + ", selectors=" + chain + ", onEmpty=" + onEmpty
                + (slowStart == null ? "" : ", slowStart=" + slowStart)
                + (protection == null ? "" : ", protection=" + protection) + "]";
    }

    /** A selector with its name for counts and its criterion for messages. */
    private record Stage(Selector selector, String name, String criterion) {
    }

    /** What one state build shares between its sides: the time, and whether any weight is still ramping. */
    private static final class Build {
        final long now;
        boolean ramping;

        Build(long now) {
            this.now = now;
        }
    }

    /** One side's way through the stages while a state is built: what was required, how many were left. */
    private final class Path {
        final Build build;
        final List<String> criteria = new ArrayList<>();
        final Map<String, Integer> counts = new LinkedHashMap<>();

        Path(Build build) {
            this.build = build;
        }

        Path copy() {
            Path copy = new Path(build);
            copy.criteria.addAll(criteria);
            copy.counts.putAll(counts);
            return copy;
        }

        List<ServiceInstance> run(Stage[] stages, List<ServiceInstance> input) {
            List<ServiceInstance> current = input;
            for (Stage stage : stages) {
                List<ServiceInstance> next = stage.selector.select(current);
                if (next == null) {
                    throw new InvalidArgumentException(new Violation("result of selector '" + stage.criterion + "'",
                            "null", "a list, possibly empty"));
                }
                current = Collections.unmodifiableList(next);
                criteria.add(stage.criterion);
                count(stage.name, current.size());
            }
            return current;
        }

        void split(String criterion, int size) {
            criteria.add(criterion);
            count(canary.key(), size);
        }

        private void count(String name, int size) {
            String key = name;
            for (int n = 2; counts.containsKey(key); n++) {
                key = name + "#" + n;
            }
            counts.put(key, size);
        }

        /** The last stage: drop weight 0, compute effective weights, prepare the strategy. */
        Leaf leaf(List<ServiceInstance> candidates, AtomicLong position) {
            criteria.add("weight>0");
            int size = candidates.size();
            ServiceInstance[] usable = new ServiceInstance[size];
            long[] weights = new long[size];
            int count = 0;
            for (int i = 0; i < size; i++) {
                ServiceInstance instance = candidates.get(i);
                if (instance == null) {
                    throw new InvalidArgumentException(new Violation("selector results", "a list holding null",
                            "free of null"));
                }
                long weight = effectiveWeight(instance, build);
                if (weight > 0) {
                    usable[count] = instance;
                    weights[count++] = weight;
                }
            }
            count("weight", count);
            Picker picker = count == 0 ? null
                    : strategy.prepare(Arrays.copyOf(usable, count), Arrays.copyOf(weights, count), position);
            return new Leaf(picker, List.copyOf(criteria), counts);
        }
    }

    /** One side (stable or canary) of a state: its picker and, for failures, how the candidates dwindled. */
    private static final class Leaf {
        final Picker picker;
        final List<String> criteria;
        final Map<String, Integer> counts;

        Leaf(Picker picker, List<String> criteria, Map<String, Integer> counts) {
            this.picker = picker;
            this.criteria = criteria;
            this.counts = counts;
        }

        /** Own picker, else the other side's, else the fallback; null when all are empty. */
        Leaf resolve(Picker otherSide, Picker fallback) {
            Picker resolved = picker != null ? picker : otherSide != null ? otherSide : fallback;
            return new Leaf(resolved, criteria, Collections.unmodifiableMap(counts));
        }
    }

    /** Everything prepared for one instance list; immutable but for the refresh flag. */
    private static final class State {
        final List<ServiceInstance> source;
        final List<ServiceInstance> heldBack;
        final long holdSince;
        final long holdUntil;
        final String serviceId;
        final int registered;
        final Leaf stable;
        final Leaf canary;
        final long refreshAt;
        final AtomicBoolean refreshing = new AtomicBoolean();

        State(List<ServiceInstance> source, List<ServiceInstance> heldBack, long holdSince, long holdUntil,
              String serviceId, int registered, Leaf stable, Leaf canary, long refreshAt) {
            this.source = source;
            this.heldBack = heldBack;
            this.holdSince = holdSince;
            this.holdUntil = holdUntil;
            this.serviceId = serviceId;
            this.registered = registered;
            this.stable = stable;
            this.canary = canary;
            this.refreshAt = refreshAt;
        }

        State holding(List<ServiceInstance> held, long since, long until) {
            return new State(source, held, since, until, serviceId, registered, stable, canary, refreshAt);
        }
    }
}
