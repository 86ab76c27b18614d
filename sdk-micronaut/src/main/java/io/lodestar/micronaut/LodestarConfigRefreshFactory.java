package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEventPublisher;
import io.micronaut.discovery.config.ConfigurationClient;
import io.micronaut.runtime.context.scope.refresh.RefreshEvent;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;

import java.util.concurrent.ExecutorService;

/**
 * The distributed-configuration concern, application half: live refresh of what {@link LodestarConfigurationClient}
 * loaded. Separate from the bootstrap half because it needs the application's {@link LodestarClient}.
 */
@Factory
@Requires(property = ConfigurationClient.ENABLED, value = "true")
@Requires(property = LodestarConfiguration.ENABLED, notEquals = "false")
@Requires(property = LodestarConfigConfiguration.ENABLED, notEquals = "false")
class LodestarConfigRefreshFactory {

    @Context
    @Bean(preDestroy = "close")
    LodestarConfigRefresher lodestarConfigRefresher(LodestarClient client, LodestarConfigConfiguration config,
                                                    Environment environment,
                                                    ApplicationEventPublisher<RefreshEvent> publisher,
                                                    @Named(TaskExecutors.BLOCKING) ExecutorService executor) {
        return new LodestarConfigRefresher(client.config(), config.getIds(), environment, publisher, executor);
    }
}
