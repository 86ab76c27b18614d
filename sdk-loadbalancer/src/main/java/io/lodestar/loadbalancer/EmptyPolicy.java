package io.lodestar.loadbalancer;

/** What a balancer does when its selectors leave no candidate. */
public enum EmptyPolicy {
    /** Throw {@link NoInstanceAvailableException}, saying which selector left how many candidates. The default. */
    FAIL,
    /**
     * Choose among the whole list instead, ignoring every selector (including the status filter): better a
     * {@code DOWN} or other-zone instance than none, as Envoy's panic mode does. Instances of weight 0 stay
     * excluded. Fails like {@link #FAIL} only when the whole list has no instance of weight above 0.
     */
    FALLBACK_TO_ALL
}
