package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.discovery.DiscoveryClient;
import jakarta.inject.Singleton;

/** The discovery concern: a {@link DiscoveryClient} over the client's local view. */
@Factory
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarDiscoveryFactory.ENABLED, notEquals = "false")
class LodestarDiscoveryFactory {
    /** {@code false} leaves service discovery to others (Lodestar is then not a {@link DiscoveryClient}). */
    static final String ENABLED = LodestarConfiguration.PREFIX + ".discovery.enabled";

    @Singleton
    DiscoveryClient lodestarDiscoveryClient(LodestarClient client) {
        return new LodestarDiscoveryClient(client.discovery().async());
    }
}
