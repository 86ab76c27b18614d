package io.lodestar.loadbalancer;

import io.lodestar.core.LodestarException;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A balancer had no instance to choose. The message is a snapshot of the state, e.g.
 * {@code No instance of 'orders' matching [status=UP, zone=eu-1 preferred, weight>0] (registered=3, afterStatus=0,
 * afterZone=0, afterWeight=0)}; the same facts are available as fields.
 */
public class NoInstanceAvailableException extends LodestarException {
    private static final long serialVersionUID = 1L;
    /** The service, or null when unknown. */
    private final String serviceId;
    /** How many instances the list held. */
    private final int registered;
    private final transient List<String> criteria;
    private final transient Map<String, Integer> counts;

    /**
     * @param serviceId  the service, or {@code null} when unknown (an empty list and no configured service id)
     * @param criteria   what the candidates had to match, in the order applied, e.g. {@code "zone=eu-1 preferred"}
     * @param registered how many instances the list held
     * @param counts     how many candidates were left after each stage, in the order applied, keyed by stage
     *                   (e.g. {@code "status"}, {@code "zone"}, {@code "weight"})
     */
    public NoInstanceAvailableException(String serviceId, List<String> criteria, int registered,
                                        Map<String, Integer> counts) {
        super(describe(serviceId, criteria, registered, counts));
        this.serviceId = serviceId;
        this.registered = registered;
        this.criteria = List.copyOf(criteria);
        this.counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
    }

    /** @return the service, or {@code null} when it was not known */
    public String serviceId() {
        return serviceId;
    }

    /** @return how many instances the list held, every status */
    public int registered() {
        return registered;
    }

    /** @return what the candidates had to match, in the order applied */
    public List<String> criteria() {
        return criteria;
    }

    /** @return how many candidates were left after each stage, in the order applied */
    public Map<String, Integer> counts() {
        return counts;
    }

    private static String describe(String serviceId, List<String> criteria, int registered,
                                   Map<String, Integer> counts) {
        StringBuilder text = new StringBuilder("No instance of ")
                .append(serviceId == null ? "an unnamed service" : "'" + serviceId + "'")
                .append(" matching ").append(criteria).append(" (registered=").append(registered);
        counts.forEach((stage, count) -> text.append(", after").append(capitalize(stage)).append('=').append(count));
        return text.append(')').toString();
    }

    private static String capitalize(String stage) {
        return stage.isEmpty() ? stage : Character.toUpperCase(stage.charAt(0)) + stage.substring(1);
    }
}
