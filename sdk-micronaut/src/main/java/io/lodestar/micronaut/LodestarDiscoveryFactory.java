package io.lodestar.micronaut;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.core.LodestarClient;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.discovery.DiscoveryClient;


/** The discovery concern: a {@link DiscoveryClient} over the client's local view. */
@Factory
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarDiscoveryFactory.ENABLED, notEquals = "false")
class LodestarDiscoveryFactory {
    /** {@code false} leaves service discovery to others (Lodestar is then not a {@link DiscoveryClient}). */
    static final String ENABLED = LodestarConfiguration.PREFIX + ".discovery.enabled";

    /**
     * Created at start-up to load the service index into the view, which then answers from it while Redis is down:
     * Micronaut's discovery-client health indicator lists the services on every {@code /health}, and logs each
     * failure at ERROR with its stack trace. A failure of this first load (Redis down at start-up) needs no report:
     * the next read tries again.
     */
    @Context
    DiscoveryClient lodestarDiscoveryClient(LodestarClient client) {
        AsyncServiceDiscovery discovery = client.discovery().async();
        discovery.getServices();
        return new LodestarDiscoveryClient(discovery);
    }
}
