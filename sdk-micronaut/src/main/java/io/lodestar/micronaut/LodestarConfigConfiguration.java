package io.lodestar.micronaut;

import io.micronaut.context.annotation.BootstrapContextCompatible;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code lodestar.config.*} properties: which Lodestar configs become Micronaut property sources. Read in the
 * bootstrap context, so set them where it reads (bootstrap.yml, environment variables, system properties).
 */
@ConfigurationProperties(LodestarConfigConfiguration.PREFIX)
@BootstrapContextCompatible
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
public class LodestarConfigConfiguration {
    /** The prefix of the distributed-configuration properties. */
    public static final String PREFIX = LodestarConfiguration.PREFIX + ".config";
    /** {@code false}: no Lodestar configuration client even when {@code micronaut.config-client.enabled}. */
    public static final String ENABLED = PREFIX + ".enabled";

    private List<String> ids = new ArrayList<>();

    /** @return the config ids loaded as property sources; a later one overrides an earlier one */
    public List<String> getIds() {
        return ids;
    }

    /** @param ids the config ids loaded as property sources, in order; a later one overrides an earlier one */
    public void setIds(List<String> ids) {
        this.ids = ids;
    }
}
