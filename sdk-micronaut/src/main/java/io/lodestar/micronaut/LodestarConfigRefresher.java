package io.lodestar.micronaut;

import io.lodestar.core.ConfigService;
import io.lodestar.core.Initial;
import io.lodestar.core.Subscription;
import io.lodestar.core.event.ConfigEvent;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEventPublisher;
import io.micronaut.runtime.context.scope.refresh.RefreshEvent;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Live refresh: when one of {@code lodestar.config.ids} changes in Redis, re-reads the environment (which asks the
 * {@link LodestarConfigurationClient} again) and publishes a {@link RefreshEvent} with the keys that changed, so
 * {@code @Refreshable} beans and {@code @ConfigurationProperties} see the new values, as Micronaut's own refresh
 * endpoint does. Runs on Micronaut's blocking executor: the re-read does network I/O.
 */
final class LodestarConfigRefresher implements AutoCloseable {
    private final Environment environment;
    private final ApplicationEventPublisher<RefreshEvent> publisher;
    private final List<Subscription> subscriptions;

    LodestarConfigRefresher(ConfigService configs, List<String> ids, Environment environment,
                            ApplicationEventPublisher<RefreshEvent> publisher, Executor executor) {
        this.environment = environment;
        this.publisher = publisher;
        // SKIP: the bootstrap read already holds the current versions; only later changes need a refresh.
        this.subscriptions = ids.stream()
                .map(id -> configs.subscribe(id, this::onEvent, Initial.SKIP, executor)).toList();
    }

    private void onEvent(ConfigEvent event) {
        Map<String, Object> changed = environment.refreshAndDiff();
        if (!changed.isEmpty()) {
            publisher.publishEvent(new RefreshEvent(changed));
        }
    }

    @Override
    public void close() {
        subscriptions.forEach(Subscription::close);
    }
}
