package io.lodestar.loadbalancer;

import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;

import java.util.List;
import java.util.function.Function;

/**
 * Keeps the instances whose attribute (a metadata value, or the region the client stamped) equals {@code value}
 * when at least one of them is usable (UP and weight above 0); otherwise keeps all. Checking usability here, not
 * just presence, makes the fallback work whether this selector runs before or after the status filter.
 */
final class PreferenceSelector extends NamedSelector {
    private final Function<ServiceInstance, String> attribute;
    private final String value;

    /**
     * @param name      the attribute's name, the stage in counts ({@code zone}, {@code region})
     * @param attribute reads it from an instance
     * @param value     the preferred value
     */
    PreferenceSelector(String name, Function<ServiceInstance, String> attribute, String value) {
        super(name, name + "=" + value + " preferred");
        this.attribute = attribute;
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
        return value.equals(attribute.apply(instance));
    }
}
