package io.lodestar.spring;

import org.springframework.boot.context.config.ConfigDataResource;

/** One {@code lodestar:<config-id>} entry of {@code spring.config.import}. */
final class LodestarConfigDataResource extends ConfigDataResource {
    private final String configId;
    private final boolean optional;

    LodestarConfigDataResource(String configId, boolean optional) {
        super(optional);
        this.configId = configId;
        this.optional = optional;
    }

    String configId() {
        return configId;
    }

    /** @return whether it was imported with {@code optional:} (Boot's own accessor is not public) */
    boolean optional() {
        return optional;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LodestarConfigDataResource that && configId.equals(that.configId);
    }

    @Override
    public int hashCode() {
        return configId.hashCode();
    }

    @Override
    public String toString() {
        return LodestarConfigDataLocationResolver.PREFIX + configId;
    }
}
