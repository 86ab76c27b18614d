package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** The registration concern: the embedded server registers itself while it runs. */
@Factory
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarRegistrationConfiguration.ENABLED, notEquals = "false")
class LodestarRegistrationFactory {

    @Singleton
    LodestarAutoRegistration lodestarAutoRegistration(LodestarClient client,
                                                      LodestarRegistrationConfiguration configuration,
                                                      LodestarConfiguration settings) {
        return new LodestarAutoRegistration(client, configuration, settings.isFailFast());
    }
}
