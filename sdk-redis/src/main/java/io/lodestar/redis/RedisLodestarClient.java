package io.lodestar.redis;

import io.lodestar.core.ConfigService;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.model.ServiceSnapshot;
import io.lettuce.core.resource.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** The Redis-backed client: owns its connections, threads, views, sweeper and leases, and closes them all. */
final class RedisLodestarClient implements LodestarClient {
    private static final Logger log = LoggerFactory.getLogger(RedisLodestarClient.class);

    final LodestarOptions options;
    final RedisBackend backend;
    final Keys keys;
    final SyncedView<ServiceSnapshot, ServiceEvent> serviceView;
    final SyncedView<Set<String>, ServicesChanged> indexView;
    private final ExecutorService viewThread;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService listenerPool;
    private final RedisServiceRegistry registry;
    private final LocalServiceDiscovery discovery;
    private final DirectServiceDiscovery directDiscovery;
    private final Sweeper sweeper;
    private final RedisConfigService config;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean resyncScheduled = new AtomicBoolean();

    RedisLodestarClient(LodestarOptions options, ClientResources resources) {
        this.options = options;
        String ns = options.namespace().name();
        this.viewThread = Executors.newSingleThreadExecutor(daemon("lodestar-view-" + ns));
        this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("lodestar-scheduler-" + ns));
        this.listenerPool = Executors.newCachedThreadPool(daemon("lodestar-listener-" + ns));
        RedisBackend connected;
        try {
            connected = RedisBackend.connect(options, resources);
        } catch (RuntimeException e) {
            shutdownThreads();
            throw e;
        }
        this.backend = connected;
        this.keys = new Keys(options.namespace());
        RegistryReads reads = new RegistryReads(backend, keys);
        Duration idle = options.idleViewTimeout();
        this.serviceView = new SyncedView<>("service", new ServiceSource(keys, reads), backend, viewThread,
                scheduler, listenerPool, idle);
        this.indexView = new SyncedView<>("service index", new IndexSource(keys, reads), backend, viewThread,
                scheduler, listenerPool, idle);
        this.registry = new RedisServiceRegistry(backend, keys, serviceView, scheduler, ns);
        this.discovery = new LocalServiceDiscovery(serviceView, indexView);
        this.directDiscovery = new DirectServiceDiscovery(reads, backend, discovery);
        this.sweeper = new Sweeper(backend, keys, registry, reads, serviceView::held, options.sweepInterval());
        this.config = new RedisConfigService(options, backend, keys, viewThread, scheduler, listenerPool);

        backend.onMessage((channel, message) -> {
            try {
                var fields = Json.read(message);
                if (!serviceView.offer(channel, fields) && !indexView.offer(channel, fields)) {
                    config.offer(channel, fields);
                }
            } catch (RuntimeException e) {
                log.warn("Ignoring an unreadable event on {}: {}", channel, e.getMessage());
            }
        });
        // A subscription Redis dropped (failover, slot migration) or lost with its node is renewed at the slot's
        // owner by the backend; the one view that follows the channel then re-reads what it may have missed.
        backend.onResubscribed(channel -> {
            if (!serviceView.resyncChannel(channel) && !indexView.resyncChannel(channel)) {
                config.resyncChannel(channel);
            }
        });
        backend.addConnectionListener(new RedisBackend.ConnectionListener() {
            @Override
            public void connected() {
                scheduleResync();
            }

            @Override
            public void disconnected() {
                serviceView.markStale();
                indexView.markStale();
                config.markStale();
            }
        });
        scheduleJittered(this::sweep, options.sweepInterval());
        scheduleJittered(this::reconcile, options.reconcileInterval());
        scheduleResync();
    }

    /** Reconnects come in bursts (command and PubSub connections, cluster nodes): resync once per burst. */
    private void scheduleResync() {
        if (resyncScheduled.compareAndSet(false, true)) {
            scheduler.schedule(() -> {
                resyncScheduled.set(false);
                serviceView.resyncAll();
                indexView.resyncAll();
                config.resyncAll();
            }, 100, TimeUnit.MILLISECONDS);
        }
    }

    private void sweep() {
        sweeper.sweepOnce().toCompletableFuture().orTimeout(options.sweepInterval().toMillis() * 2,
                TimeUnit.MILLISECONDS).exceptionally(failure -> null).join();
    }

    private void reconcile() {
        serviceView.reconcile();
        indexView.reconcile();
        config.reconcile();
    }

    private void scheduleJittered(Runnable task, Duration interval) {
        long millis = interval.toMillis();
        long delay = millis - millis / 10 + ThreadLocalRandom.current().nextLong(millis / 5 + 1);
        scheduler.schedule(() -> {
            if (closed.get()) {
                return;
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("Background task failed: {}", e.toString());
            } finally {
                if (!closed.get()) {
                    scheduleJittered(task, interval);
                }
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    @Override
    public Namespace namespace() {
        return options.namespace();
    }

    @Override
    public ServiceRegistry registry() {
        return registry;
    }

    @Override
    public ServiceDiscovery discovery() {
        return discovery;
    }

    @Override
    public ServiceDiscovery directDiscovery() {
        return directDiscovery;
    }

    @Override
    public ConfigService config() {
        return config;
    }

    /** The views by name, for metrics. */
    Map<String, SyncedView<?, ?>> views() {
        return Map.of("service", serviceView, "index", indexView, "config", config.entriesView(),
                "config-index", config.indexView());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (options.deregisterOnClose()) {
                registry.deregisterAll();
            }
        } finally {
            registry.stopRenewing();
            serviceView.close();
            indexView.close();
            config.close();
            backend.close();
            shutdownThreads();
        }
    }

    private void shutdownThreads() {
        scheduler.shutdownNow();
        viewThread.shutdownNow();
        listenerPool.shutdown();
    }

    @Override
    public String toString() {
        return "LodestarClient[" + options.redactedRedisUri() + ", namespace=" + options.namespace() + "]";
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
