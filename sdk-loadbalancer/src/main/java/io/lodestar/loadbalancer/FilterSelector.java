package io.lodestar.loadbalancer;

import io.lodestar.core.model.ServiceInstance;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Keeps the candidates that match a predicate: metadata matches and custom predicates. */
class FilterSelector extends NamedSelector {
    private final Predicate<ServiceInstance> keep;

    FilterSelector(String stage, String criterion, Predicate<ServiceInstance> keep) {
        super(stage, criterion);
        this.keep = keep;
    }

    @Override
    public final List<ServiceInstance> select(List<ServiceInstance> candidates) {
        return filter(candidates, keep);
    }

    /** Runs once per instance list: allocates only when something is dropped. */
    static List<ServiceInstance> filter(List<ServiceInstance> candidates, Predicate<ServiceInstance> keep) {
        List<ServiceInstance> kept = null;
        for (int i = 0; i < candidates.size(); i++) {
            ServiceInstance instance = candidates.get(i);
            boolean matches = keep.test(instance);
            if (!matches && kept == null) {
                kept = new ArrayList<>(candidates.subList(0, i));
            } else if (matches && kept != null) {
                kept.add(instance);
            }
        }
        return kept == null ? candidates : List.copyOf(kept);
    }
}
