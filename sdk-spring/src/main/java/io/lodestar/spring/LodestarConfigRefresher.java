package io.lodestar.spring;

import io.lodestar.core.Initial;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.Subscription;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.cloud.endpoint.event.RefreshEvent;
import org.springframework.context.ApplicationEventPublisher;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Turns a change of an imported config entry into Spring Cloud's {@link RefreshEvent}: its refresh re-runs the
 * imports, rebinds {@code @ConfigurationProperties} beans and refreshes {@code @RefreshScope} beans. The refresh runs
 * on a thread of its own, not on a Lodestar listener thread, which must stay free for the next events.
 */
class LodestarConfigRefresher implements SmartInitializingSingleton, DisposableBean {
    private final LodestarClient lodestar;
    private final LodestarConfigImports imports;
    private final ApplicationEventPublisher publisher;
    private final ExecutorService refreshes = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "lodestar-config-refresh");
        thread.setDaemon(true);
        return thread;
    });
    private volatile List<Subscription> subscriptions = List.of();

    LodestarConfigRefresher(LodestarClient lodestar, LodestarConfigImports imports,
                            ApplicationEventPublisher publisher) {
        this.lodestar = lodestar;
        this.imports = imports;
        this.publisher = publisher;
    }

    @Override
    public void afterSingletonsInstantiated() {
        subscriptions = imports.configIds().stream()
                .map(id -> lodestar.config().subscribe(id, event -> publisher.publishEvent(
                        new RefreshEvent(this, event, "Lodestar config " + id + " changed")), Initial.SKIP,
                        refreshes))
                .toList();
    }

    @Override
    public void destroy() {
        subscriptions.forEach(Subscription::close);
        refreshes.shutdownNow();
    }
}
