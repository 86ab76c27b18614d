package io.lodestar.loadbalancer;

import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.util.List;

/**
 * Keeps the instances whose metadata {@code key} equals {@code value} when at least one of them is usable (UP and
 * weight above 0); otherwise keeps all. Checking usability here, not just presence, makes the fallback work whether
 * this selector runs before or after the status filter.
 */
final class PreferenceSelector extends NamedSelector {
    private final String key;
    private final String value;

    PreferenceSelector(String key, String value) {
        super(key, key + "=" + value + " preferred");
        this.key = key;
        this.value = value;
    }

    @Override
    public List<ServiceInstance> select(List<ServiceInstance> candidates) {
        List<ServiceInstance> preferred = FilterSelector.filter(candidates, this::matches);
        for (ServiceInstance instance : preferred) {
            if (instance.status() == InstanceStatus.UP && instance.weight() > 0) {
                return preferred;
            }
        }
        return candidates;
    }

    private boolean matches(ServiceInstance instance) {
        return value.equals(instance.metadata(key));
    }
}
