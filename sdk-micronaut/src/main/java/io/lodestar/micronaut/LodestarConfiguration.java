package io.lodestar.micronaut;

import io.lodestar.core.LodestarSettings;
import io.micronaut.context.annotation.BootstrapContextCompatible;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;

/**
 * The {@code lodestar.*} properties: {@link LodestarSettings} bound by Micronaut, nothing added. For example
 * {@code lodestar.redis-uri}, {@code lodestar.namespace}, {@code lodestar.command-timeout=2s}.
 */
@ConfigurationProperties(LodestarConfiguration.PREFIX)
@BootstrapContextCompatible // the configuration client reads distributed configuration before the application starts
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
public class LodestarConfiguration extends LodestarSettings {
    /** The prefix of every Lodestar property. */
    public static final String PREFIX = "lodestar";
    /** {@code false} removes every Lodestar bean. */
    public static final String ENABLED = PREFIX + ".enabled";
}
