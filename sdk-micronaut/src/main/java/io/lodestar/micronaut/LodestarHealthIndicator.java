package io.lodestar.micronaut;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.LodestarClient;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import org.reactivestreams.Publisher;

import java.util.Map;

/**
 * {@link LodestarClient#health()} as a Micronaut health indicator: UP when every Redis node is connected and no
 * view is stale, DOWN with a {@code reason} otherwise. {@code health()} reads local state only, so the result is
 * computed on the caller's thread. Details are {@link ClientHealth#details()}: plain maps any JSON codec renders.
 */
final class LodestarHealthIndicator implements HealthIndicator {
    private final LodestarClient client;

    LodestarHealthIndicator(LodestarClient client) {
        this.client = client;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        ClientHealth health = client.health();
        Map<String, Object> details = health.details();
        // No exception on the result: Micronaut logs every result's exception at ERROR with its stack trace.
        return Publishers.just(HealthResult.builder("lodestar", health.healthy() ? HealthStatus.UP : HealthStatus.DOWN)
                .details(details).build());
    }
}
