package io.lodestar.spring;

import io.lodestar.core.Initial;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.Subscription;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.cloud.endpoint.event.RefreshEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Turns a change of an imported config entry into Spring Cloud's {@link RefreshEvent}: its refresh re-runs the
 * imports, rebinds {@code @ConfigurationProperties} beans and refreshes {@code @RefreshScope} beans. The refresh runs
 * on a thread of its own, not on a Lodestar listener thread, which must stay free for the next events.
 *
 * <p>It subscribes once the application is ready (Spring Cloud ignores refresh events before that), starting with the
 * current entry ({@link Initial#DELIVER}), and refreshes whenever an entry's content differs from what the environment
 * holds (not when its version is higher: versions start again at 1 after Redis lost its data): a change made between
 * the import and the subscription is not lost.
 */
class LodestarConfigRefresher implements ApplicationListener<ApplicationReadyEvent>, DisposableBean {
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
    public void onApplicationEvent(ApplicationReadyEvent event) {
        if (!subscriptions.isEmpty()) { // a child context's ready event reaches its parent's listeners too
            return;
        }
        subscriptions = imports.configIds().stream()
                .map(id -> lodestar.config().subscribe(id, change -> {
                    if (imports.differs(change)) {
                        publisher.publishEvent(new RefreshEvent(this, change, "Lodestar config " + id + " changed"));
                    }
                }, Initial.DELIVER, refreshes))
                .toList();
    }

    @Override
    public void destroy() {
        subscriptions.forEach(Subscription::close);
        refreshes.shutdownNow();
    }
}
