package io.lodestar.micronaut;

import io.lodestar.core.LodestarSettings;
import io.lodestar.core.StartupMode;
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

    private boolean failFast;
    private boolean startupModeSet;

    /** @return whether an unreachable Redis stops the start (default false) */
    public boolean isFailFast() {
        return failFast;
    }

    /** @param failFast whether an unreachable Redis stops the start */
    public void setFailFast(boolean failFast) {
        this.failFast = failFast;
    }

    /**
     * @return {@code lodestar.startup-mode} when it is set; otherwise {@code OFFLINE}, or {@code FAIL_FAST} with
     *     {@code lodestar.fail-fast=true}
     */
    @Override
    public StartupMode getStartupMode() {
        if (startupModeSet) {
            return super.getStartupMode();
        }
        return failFast ? StartupMode.FAIL_FAST : StartupMode.OFFLINE;
    }

    /** @param startupMode how the client starts; wins over {@code lodestar.fail-fast} for the client's creation */
    @Override
    public void setStartupMode(StartupMode startupMode) {
        super.setStartupMode(startupMode);
        this.startupModeSet = startupMode != null;
    }
}
