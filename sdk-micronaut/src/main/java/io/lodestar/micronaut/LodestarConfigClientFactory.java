package io.lodestar.micronaut;

import io.micronaut.context.annotation.BootstrapContextCompatible;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.discovery.config.ConfigurationClient;
import jakarta.inject.Singleton;

/**
 * The distributed-configuration concern, bootstrap half: the {@link ConfigurationClient}, when the application
 * turns distributed configuration on ({@code micronaut.config-client.enabled=true}, which Micronaut's
 * micronaut-discovery-client reads in the bootstrap context).
 */
@Factory
@BootstrapContextCompatible
@Requires(property = ConfigurationClient.ENABLED, value = "true")
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarConfigConfiguration.ENABLED, notEquals = "false")
class LodestarConfigClientFactory {

    @Singleton
    @BootstrapContextCompatible
    ConfigurationClient lodestarConfigurationClient(LodestarConfiguration settings,
                                                    LodestarConfigConfiguration config) {
        return new LodestarConfigurationClient(settings, config);
    }
}
