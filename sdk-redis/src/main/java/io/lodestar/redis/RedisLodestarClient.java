package io.lodestar.redis;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.lodestar.core.ClientHealth;
import io.lodestar.core.ConfigReader;
import io.lodestar.core.ConfigService;
import io.lodestar.core.ConnectionStateListener;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceRegistry;
import io.lodestar.core.Subscription;
import io.lodestar.core.Violation;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.core.model.Namespace;
import io.lodestar.core.model.ServiceSnapshot;
import io.lodestar.redis.internal.time.Clock;
import io.lodestar.redis.internal.view.ChannelRouter;
import io.lettuce.core.resource.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The Redis-backed client: owns its connections, threads, views, sweeper and leases, and closes them all, except
 * what the caller lent it (Lettuce resources, a scheduler), which stays the caller's to close.
 *
 * <p>Threads: the scheduler only times things and never runs anything that blocks (a renewal, a sweep and a
 * reconcile send commands and return), so a slow Redis or a big namespace cannot delay a renewal; the view thread
 * applies every change of the views in order; the listener pool calls listeners and completes every public future
 * (never Redis' I/O thread, so a user's continuation never runs on an event loop).
 */
final class RedisLodestarClient implements LodestarClient {
    private static final Logger log = LoggerFactory.getLogger(RedisLodestarClient.class);
    static final int MAX_LISTENER_THREADS = 256;
    /**
     * Most jitter of a resync after a complete reconnect, so the clients of a fleet that reconnected together
     * (Lettuce's own reconnect delay is jittered too, but a short outage gives them all the first, shortest one) do
     * not all start reading in one millisecond; each view bounds its own concurrent loads.
     */
    static final long RESYNC_JITTER_MS = 25;
    /** Resync after this (plus up to as much again) when the reconnect burst has not completed by then. */
    static final long RESYNC_FALLBACK_MS = 100;

    final LodestarOptions options;
    final RedisBackend backend;
    final Keys keys;
    final SyncedView<ServiceSnapshot, ServiceEvent> serviceView;
    final SyncedView<Set<String>, ServicesChanged> indexView;
    /** The registry's reads (tests count their scripts). */
    final RegistryReads reads;
    /** The view thread, or the client's lane on a shared executor. */
    private final ClientLane viewThread;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    /** Listener deliveries and public futures' completions: a pool of the client's own, or a shared executor. */
    private final ClientLane listenerPool;
    private final RedisServiceRegistry registry;
    private final LocalServiceDiscovery discovery;
    private final DirectServiceDiscovery directDiscovery;
    private final Sweeper sweeper;
    private final RedisConfigService config;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The resync waiting to start, and whether it was timed for a complete reconnect (guarded by itself). */
    private final Object resyncLock = new Object();
    private ScheduledFuture<?> pendingResync;
    private boolean pendingResyncSoon;
    private final AtomicBoolean sweeping = new AtomicBoolean();
    /** The readers of the remote regions, by name in the order named (none for a remote region's own reader). */
    private final Map<String, RedisLodestarClient> remoteRegions;
    /** With remote regions: home first, then the others (see {@link RegionalDiscovery}); else the home view. */
    private final ServiceDiscovery preferred;
    private final ServiceDiscovery allRegions;

    /**
     * @param resources      the Lettuce resources to use
     * @param ownsResources  whether they were made for this client (then it shuts them down)
     * @param sharedScheduler a caller's scheduler to time background work on, or null for one of its own
     * @param sharedExecutor a caller's executor to run the view and the listeners on, or null for a view thread and
     *                       listener threads of its own
     * @param threadFactory  makes every thread the client starts, or null for daemon threads named
     *                       {@code lodestar-<role>-<namespace>-<n>}
     * @param remoteRegions  the readers of the remote regions, closed with this client (none for such a reader)
     * @param readOnly       whether this is a remote region's reader: it never sweeps (it only reads, and its
     *                       credentials may allow no more; that region's own clients sweep it), and its threads are
     *                       named {@code lodestar-<role>-<namespace>-<region>-<n>}
     */
    RedisLodestarClient(LodestarOptions options, ClientResources resources, boolean ownsResources,
                        ScheduledExecutorService sharedScheduler, Executor sharedExecutor,
                        ThreadFactory threadFactory, Map<String, RedisLodestarClient> remoteRegions,
                        boolean readOnly) {
        this.options = options;
        this.remoteRegions = Map.copyOf(remoteRegions);
        // the config keys are read first: a keyset that cannot be read fails the start before anything is opened
        ConfigCodec codec = ConfigCodec.of(options);
        String ns = options.namespace().name();
        String named = readOnly ? ns + "-" + options.region().orElse("remote") : ns;
        this.viewThread = sharedExecutor == null
                ? ClientLane.ownThread(Executors.newSingleThreadExecutor(threads(threadFactory,
                        "lodestar-view-" + named)))
                : ClientLane.serial(sharedExecutor);
        this.ownsScheduler = sharedScheduler == null;
        this.scheduler = ownsScheduler ? ownScheduler(threads(threadFactory, "lodestar-scheduler-" + named))
                : sharedScheduler;
        this.listenerPool = sharedExecutor == null
                ? ClientLane.ownPool(listenerPool(threads(threadFactory, "lodestar-listener-" + named)))
                : ClientLane.concurrent(sharedExecutor);
        RedisBackend connected;
        try {
            connected = RedisBackend.connect(options, resources, ownsResources);
        } catch (RuntimeException e) {
            shutdownThreads();
            throw e;
        }
        this.backend = connected;
        this.keys = new Keys(options.namespace());
        String region = options.region().orElse(null);
        this.reads = new RegistryReads(backend, keys, region);
        ChannelRouter router = new ChannelRouter();
        SyncedView.Shared views = new SyncedView.Shared(backend, router, viewThread, listenerPool,
                Clock.system(scheduler), () -> ThreadLocalRandom.current().nextLong(), SyncedView.LIMITS,
                options.idleViewTimeout(), options.viewTopicLimit(), Scheduler.systemScheduler());
        this.serviceView = new SyncedView<>("service", new ServiceSource(keys, reads, region, Snapshots.services(
                options.serviceSnapshotDirectory(), ns, options.redactedRedisUri(), listenerPool)), views);
        this.indexView = new SyncedView<>("service index", new IndexSource(keys, reads,
                service -> ServiceSource.keptFor(serviceView.api().peek(service))), views);
        this.registry = new RedisServiceRegistry(backend, keys, serviceView, views, scheduler, listenerPool, ns,
                region);
        this.discovery = new LocalServiceDiscovery(serviceView, indexView, listenerPool, backend);
        this.directDiscovery = new DirectServiceDiscovery(reads, backend, discovery, listenerPool);
        List<RedisLodestarClient> remotes = options.remoteRegions().keySet().stream().map(remoteRegions::get)
                .toList();
        this.preferred = remotes.isEmpty() ? discovery
                : new RegionalDiscovery(this, remotes, options.regionFailoverThreshold());
        this.allRegions = remotes.isEmpty() ? discovery : new RegionalDiscovery(this, remotes, Integer.MAX_VALUE);
        this.sweeper = new Sweeper(backend, keys, registry, reads, serviceView.api()::held, options.sweepInterval());
        this.config = new RedisConfigService(options, codec, backend, keys, views, listenerPool);
        registry.onRegistered(instance -> config.identify(InstanceIdentity.of(instance)));

        backend.onMessage((channel, message) -> {
            try {
                // the topic that follows the channel reads the event its own way (a service event without a map)
                router.offer(channel, message);
            } catch (RuntimeException e) {
                log.warn("Ignoring an unreadable event on {}: {}", channel, e.getMessage());
            }
        });
        // A subscription Redis dropped (failover, slot migration) or lost with its node is renewed at the slot's
        // owner by the backend; the one topic that follows the channel then re-reads what it may have missed.
        backend.onResubscribed(router::resubscribed);
        backend.addConnectionListener(new RedisBackend.ConnectionListener() {
            @Override
            public void connected(String node) {
                scheduleResync();
            }

            @Override
            public void disconnected(String node) {
                serviceView.markStale();
                indexView.markStale();
                config.markStale();
            }
        });
        if (!readOnly) {
            scheduleJittered(this::sweep, options.sweepInterval());
        }
        scheduleJittered(this::reconcile, options.reconcileInterval());
        scheduleJittered(config::renewApplied, options.sweepInterval());
        scheduleResync();
        preload();
    }

    /** Loads the configured services before the client is handed out (bounded; skipped while Redis is away). */
    private void preload() {
        if (options.preloadServices().isEmpty()) {
            return;
        }
        try {
            preferred.preload(options.preloadServices()).toCompletableFuture() // remote regions: in the background
                    .get(options.commandTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Could not preload services {} ({}); they load in the background", options.preloadServices(),
                    Errors.unwrap(e).toString());
        }
    }

    /**
     * Reconnects come in bursts (command and PubSub connections, cluster nodes): resync once per burst. As soon as
     * the burst is complete ({@link RedisBackend#isConnected}: standalone both connections, on a cluster every
     * subscription in place again), within {@link #RESYNC_JITTER_MS}; a resync started before would only fail its
     * subscribes and back off. Until then {@link #RESYNC_FALLBACK_MS}-200 ms after the first reconnect of the burst
     * (jittered), so a burst that does not complete still resyncs what it can (the rest retries with backoff).
     */
    private void scheduleResync() {
        boolean complete = backend.isConnected();
        synchronized (resyncLock) {
            if (pendingResync != null && (pendingResyncSoon || !complete)) {
                return; // once per burst: the one waiting covers this reconnect too
            }
            if (pendingResync != null && !pendingResync.cancel(false)) {
                return; // starting now
            }
            long delay = complete ? ThreadLocalRandom.current().nextLong(RESYNC_JITTER_MS + 1)
                    : RESYNC_FALLBACK_MS + ThreadLocalRandom.current().nextLong(RESYNC_FALLBACK_MS + 1);
            pendingResyncSoon = complete;
            pendingResync = scheduler.schedule(() -> {
                synchronized (resyncLock) {
                    pendingResync = null;
                }
                serviceView.resyncAll();
                indexView.resyncAll();
                config.resyncAll();
            }, delay, TimeUnit.MILLISECONDS);
        }
    }

    /** Starts a sweep unless one still runs; never waits for it, so the scheduler stays free for renewals. */
    private void sweep() {
        if (sweeping.compareAndSet(false, true)) {
            sweeper.sweepOnce().toCompletableFuture()
                    .orTimeout(options.sweepInterval().toMillis() * 2, TimeUnit.MILLISECONDS)
                    .whenComplete((ok, failure) -> sweeping.set(false));
        }
    }

    private void reconcile() {
        backend.lookAtTopology();
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
    public List<String> regions() {
        return options.region().map(home -> Stream.concat(Stream.of(home), options.remoteRegions().keySet()
                .stream()).toList()).orElse(List.of());
    }

    @Override
    public ServiceDiscovery discovery() {
        return preferred;
    }

    @Override
    public ServiceDiscovery discovery(String region) {
        if (region != null && region.equals(options.region().orElse(null))) {
            return discovery;
        }
        RedisLodestarClient remote = region == null ? null : remoteRegions.get(region);
        if (remote == null) {
            throw new InvalidArgumentException(new Violation("region", region, "one of " + regions()));
        }
        return remote.discovery;
    }

    @Override
    public ServiceDiscovery allRegions() {
        return allRegions;
    }

    /** The home region's own view (no failover). */
    LocalServiceDiscovery localDiscovery() {
        return discovery;
    }

    /** The readers of the remote regions, by name (metrics, health). */
    Map<String, RedisLodestarClient> remoteRegions() {
        return remoteRegions;
    }

    @Override
    public ServiceDiscovery directDiscovery() {
        return directDiscovery;
    }

    @Override
    public ConfigService config() {
        return config;
    }

    @Override
    public ConfigReader directConfig() {
        return config.direct();
    }

    /** The config service's implementation (tests look at what its view holds). */
    RedisConfigService configService() {
        return config;
    }

    @Override
    public ClientHealth health() {
        List<ClientHealth.Region> regions = options.remoteRegions().keySet().stream().map(name ->
                new ClientHealth.Region(name, remoteRegions.get(name).nodes(),
                        remoteRegions.get(name).discovery.status())).toList();
        return new ClientHealth(nodes(), discovery.status(), config.status(), registry.health(), regions);
    }

    private List<ClientHealth.Node> nodes() {
        return backend.nodes().stream()
                .map(node -> new ClientHealth.Node(node.address(), node.connected(), node.since(), node.problem()))
                .toList();
    }

    @Override
    public Subscription addConnectionStateListener(ConnectionStateListener listener) {
        Validation.requireNonNull("listener", listener);
        Executor serial = new SerialExecutor(listenerPool);
        RedisBackend.ConnectionListener bridge = new RedisBackend.ConnectionListener() {
            @Override
            public void connected(String node) {
                serial.execute(() -> listener.connected(node));
            }

            @Override
            public void disconnected(String node) {
                serial.execute(() -> listener.disconnected(node));
            }
        };
        backend.addConnectionListener(bridge);
        return () -> backend.removeConnectionListener(bridge);
    }

    @Override
    public int drain() {
        return registry.drain();
    }

    @Override
    public int deregisterAll() {
        return registry.deregisterAll();
    }

    /** The sweeper, for metrics. */
    Sweeper sweeper() {
        return sweeper;
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
            registry.beginClose();
            if (options.deregisterOnClose()) {
                registry.deregisterAll();
            }
        } finally {
            remoteRegions.values().forEach(RedisLodestarClient::close);
            registry.stopRenewing();
            serviceView.close();
            indexView.close();
            config.close();
            backend.close();
            shutdownThreads();
        }
    }

    private void shutdownThreads() {
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        viewThread.close();
        listenerPool.close();
    }

    @Override
    public String toString() {
        return "LodestarClient[" + options.redactedRedisUri() + ", namespace=" + options.namespace() + "]";
    }

    /**
     * Threads for listeners and public futures: as many as are busy, up to {@link #MAX_LISTENER_THREADS}, idle ones
     * leave after a minute. Each listener runs on one at a time (its own bounded queue), so a stuck listener holds
     * one thread and no other listener; past the bound a listener's events are dropped and it gets the current
     * state when it runs again (see SerialExecutor), and a future completes on the thread that completed it.
     */
    private static ExecutorService listenerPool(ThreadFactory threads) {
        return new ThreadPoolExecutor(0, MAX_LISTENER_THREADS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                threads);
    }

    /** Cancelled tasks leave the queue at once: a client that stops many leases does not keep their tasks. */
    private static ScheduledExecutorService ownScheduler(ThreadFactory threads) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    private static ThreadFactory threads(ThreadFactory shared, String name) {
        if (shared != null) {
            return shared;
        }
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
