package io.lodestar.loadbalancer;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.Violation;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The ready-made {@link Selector}s. Each is a small immutable object, usable in any number of balancers, whose
 * {@code toString()} is the criterion shown in {@link NoInstanceAvailableException}.
 *
 * <p>Unless a balancer is given a status selector ({@link #healthyOnly()} or {@link #status(InstanceStatus...)})
 * explicitly, it runs {@link #healthyOnly()} before every other selector.
 */
public final class Selectors {
    /** The metadata key {@link #zonePreference(String)} looks at. */
    public static final String ZONE = "zone";
    /**
     * The stage name of {@link #regionPreference(String)}, which prefers by the region the client stamped on each
     * instance ({@link ServiceInstance#region()}), never by a metadata entry of this name.
     */
    public static final String REGION = "region";

    private static final StatusSelector HEALTHY_ONLY = new StatusSelector(EnumSet.of(InstanceStatus.UP));

    private Selectors() {
    }

    /**
     * Keeps only {@link InstanceStatus#UP} instances: drops {@code DOWN}, {@code OUT_OF_SERVICE} and
     * {@code STARTING}. Balancers run it first unless given a status selector.
     *
     * @return the selector; criterion {@code status=UP}
     */
    public static Selector healthyOnly() {
        return HEALTHY_ONLY;
    }

    /**
     * Keeps the instances in one of the given statuses, e.g. {@code status(UP, STARTING)}. Given to a balancer, it
     * replaces the default {@link #healthyOnly()}; {@code status(InstanceStatus.values())} turns status filtering off.
     *
     * @param allowed the statuses to keep, at least one
     * @return the selector; criterion {@code status in [UP, STARTING]}
     * @throws InvalidArgumentException when {@code allowed} is null, empty or holds null
     */
    public static Selector status(InstanceStatus... allowed) {
        if (allowed == null || allowed.length == 0 || Arrays.asList(allowed).contains(null)) {
            throw invalid("allowed", allowed == null ? null : Arrays.asList(allowed),
                    "at least one non-null status");
        }
        return new StatusSelector(EnumSet.copyOf(Arrays.asList(allowed)));
    }

    /**
     * Keeps the instances whose metadata {@code key} equals {@code value}, e.g. {@code metadata("version", "2.1")}.
     *
     * @param key   a metadata key
     * @param value the value it must have
     * @return the selector; criterion {@code key=value}
     * @throws InvalidArgumentException when {@code key} is null or empty or {@code value} is null
     */
    public static Selector metadata(String key, String value) {
        Validation.collector().check(key != null && !key.isEmpty(), "key", key, "a non-empty metadata key")
                .notNull("value", value).throwIfInvalid();
        return new FilterSelector(key, key + "=" + value, instance -> value.equals(instance.metadata(key)));
    }

    /**
     * Keeps the instances whose metadata {@code key} has one of {@code values}, e.g.
     * {@code metadataIn("version", Set.of("2.1", "2.2"))}.
     *
     * @param key    a metadata key
     * @param values the accepted values, at least one
     * @return the selector; criterion {@code key in [v1, v2]}
     * @throws InvalidArgumentException when {@code key} is null or empty, or {@code values} is null, empty or
     *                                  holds null
     */
    public static Selector metadataIn(String key, Set<String> values) {
        boolean valuesOk = values != null && !values.isEmpty() && values.stream().noneMatch(v -> v == null);
        Validation.collector().check(key != null && !key.isEmpty(), "key", key, "a non-empty metadata key")
                .check(valuesOk, "values", values, "a non-empty set without null").throwIfInvalid();
        Set<String> accepted = Set.copyOf(values);
        return new FilterSelector(key, key + " in " + new TreeSet<>(accepted),
                instance -> {
                    String actual = instance.metadata(key);
                    return actual != null && accepted.contains(actual);
                });
    }

    /**
     * Keeps the instances that have metadata {@code key}, whatever its value.
     *
     * @param key a metadata key
     * @return the selector; criterion {@code has key}
     * @throws InvalidArgumentException when {@code key} is null or empty
     */
    public static Selector metadataPresent(String key) {
        Validation.collector().check(key != null && !key.isEmpty(), "key", key, "a non-empty metadata key")
                .throwIfInvalid();
        return new FilterSelector(key, "has " + key, instance -> instance.metadata(key) != null);
    }

    /**
     * Prefers the instances in my zone (metadata {@value #ZONE}): keeps them when at least one of them is
     * {@code UP} with a weight above 0, otherwise keeps all candidates, so losing a zone shifts traffic to the
     * others instead of failing. Works before or after the status filter.
     *
     * @param zone this process's zone, e.g. {@code eu-1a}
     * @return the selector; criterion {@code zone=eu-1a preferred}
     * @throws InvalidArgumentException when {@code zone} is null or empty
     */
    public static Selector zonePreference(String zone) {
        return preference(ZONE, zone);
    }

    /**
     * Prefers the instances in my region ({@link ServiceInstance#region()}: the region the client read the instance
     * from, never its metadata), falling back to all like {@link #zonePreference(String)}. Put it before a zone
     * preference for "same zone, else same region, else any region", over the instances of every region
     * ({@code LodestarClient.allRegions()}):
     * {@code LoadBalancers.roundRobin().selector(regionPreference("eu")).selector(zonePreference("eu-1a")).build()}.
     *
     * @param region this process's region, e.g. {@code eu-west}
     * @return the selector; criterion {@code region=eu-west preferred}
     * @throws InvalidArgumentException when {@code region} is null or empty
     */
    public static Selector regionPreference(String region) {
        Validation.collector().check(region != null && !region.isEmpty(), "region", region, "a non-empty string")
                .throwIfInvalid();
        return new PreferenceSelector(REGION, ServiceInstance::region, region);
    }

    /**
     * Prefers the instances whose metadata {@code key} equals {@code value} when at least one of them is
     * {@code UP} with a weight above 0; otherwise keeps all candidates.
     *
     * @param key   a metadata key
     * @param value the preferred value
     * @return the selector; criterion {@code key=value preferred}
     * @throws InvalidArgumentException when {@code key} or {@code value} is null or empty
     */
    public static Selector preference(String key, String value) {
        Validation.collector().check(key != null && !key.isEmpty(), "key", key, "a non-empty metadata key")
                .check(value != null && !value.isEmpty(), "value", value, "a non-empty string").throwIfInvalid();
        return new PreferenceSelector(key, instance -> instance.metadata(key), value);
    }

    /**
     * Keeps the instances that match a custom predicate. The predicate runs once per instance list, not per
     * request, so it must depend on the instance only.
     *
     * @param name      a short name for messages and counts, e.g. {@code "blue"}
     * @param predicate true for the instances to keep
     * @return the selector; criterion {@code name}
     * @throws InvalidArgumentException when {@code name} is null or empty or {@code predicate} is null
     */
    public static Selector matching(String name, Predicate<ServiceInstance> predicate) {
        Validation.collector().check(name != null && !name.isEmpty(), "name", name, "a non-empty string")
                .notNull("predicate", predicate).throwIfInvalid();
        return new FilterSelector(name, name, predicate);
    }

    /**
     * Gives a custom selector a name for messages and counts (a lambda's own {@code toString()} says nothing).
     *
     * @param name     a short name, e.g. {@code "newest-two"}
     * @param selector the selector
     * @return a selector that delegates to {@code selector}; criterion {@code name}
     * @throws InvalidArgumentException when {@code name} is null or empty or {@code selector} is null
     */
    public static Selector named(String name, Selector selector) {
        Validation.collector().check(name != null && !name.isEmpty(), "name", name, "a non-empty string")
                .notNull("selector", selector).throwIfInvalid();
        return new NamedSelector(name, name) {
            @Override
            public List<ServiceInstance> select(List<ServiceInstance> candidates) {
                return selector.select(candidates);
            }
        };
    }

    private static InvalidArgumentException invalid(String field, Object value, String rule) {
        return new InvalidArgumentException(new Violation(field, Validation.show(value), rule));
    }
}
