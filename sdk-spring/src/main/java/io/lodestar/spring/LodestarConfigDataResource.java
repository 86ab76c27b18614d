package io.lodestar.spring;

import org.springframework.boot.context.config.ConfigDataResource;

/** One {@code lodestar:<config-id>} entry of {@code spring.config.import}. */
final class LodestarConfigDataResource extends ConfigDataResource {
    private final String configId;

    LodestarConfigDataResource(String configId, boolean optional) {
        super(optional);
        this.configId = configId;
    }

    String configId() {
        return configId;
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
