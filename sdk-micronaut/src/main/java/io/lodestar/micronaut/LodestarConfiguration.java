package io.lodestar.micronaut;

import io.lodestar.core.LodestarSettings;
import io.micronaut.context.annotation.BootstrapContextCompatible;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;

/**
 * The {@code lodestar.*} properties: {@link LodestarSettings} bound by Micronaut, plus {@code lodestar.fail-fast}.
 * For example {@code lodestar.redis-uri}, {@code lodestar.namespace}, {@code lodestar.command-timeout=2s}.
 *
 * <p>{@code lodestar.fail-fast} (default false) decides what an unreachable Redis does to the start: by default the
 * client starts offline and the server registers once Redis answers; {@code true} stops the start. An explicit
 * {@code lodestar.startup-mode} wins over it for the client's creation (the registration still follows
 * {@code lodestar.fail-fast}).
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
