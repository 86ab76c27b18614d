package io.lodestar.redis;

import io.lodestar.core.AsyncServiceDiscovery;
import io.lodestar.core.Initial;
import io.lodestar.core.InstanceFilter;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.ServiceDiscovery;
import io.lodestar.core.ServiceListener;
import io.lodestar.core.ServicesListener;
import io.lodestar.core.Subscription;
import io.lodestar.core.ViewStatus;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The home region's view, widened with the remote regions' views: a service's instances are home's, and the next
 * region's (in the order named) are added while fewer than {@code threshold} of those gathered are UP; with an
 * unreachable threshold, every region's ({@link io.lodestar.core.LodestarClient#allRegions()}).
 *
 * <p>Home is read as ever (a first read loads it, and fails if home cannot be reached). A remote region is only
 * ever <em>looked at</em>: what its view holds, never a load that waits, so a region far away or down never slows
 * or fails a read at home. Every read of a service looks at it in every region, even when home alone answers: the
 * remote views load it in the background on the first read and keep it (a read marks it used), so that failing
 * over finds it there, current, the moment home runs out. Until a remote view has loaded a service, that region
 * adds nothing.
 *
 * <p>Each remote region's view is a client of its own on that region's Redis ({@link RedisLodestarClient}, read
 * only): the same engine as home's, with the same ordering, gap, resync and reconnect guarantees.
 */
final class RegionalDiscovery extends SnapshotDiscovery {
    private static final Logger log = LoggerFactory.getLogger(RegionalDiscovery.class);

    private final LocalServiceDiscovery home;
    private final SyncedView<ServiceSnapshot, ?> homeServices;
    private final List<Remote> remotes;
    private final int threshold;
    private final long retryLoadNanos;
    private final AsyncServiceDiscovery async = new Async();
    /** The last widened snapshot of each service, reused while its parts are the same objects. */
    private final Map<String, Widened> widened = new ConcurrentHashMap<>();

    RegionalDiscovery(RedisLodestarClient home, List<RedisLodestarClient> remotes, int threshold) {
        this.home = home.localDiscovery();
        this.homeServices = home.serviceView;
        this.remotes = remotes.stream().map(Remote::new).toList();
        this.threshold = threshold;
        this.retryLoadNanos = home.options.commandTimeout().toNanos();
    }

    @Override
    public Set<String> getServices() {
        Set<String> services = home.getServices();
        Set<String> all = null;
        for (Remote remote : remotes) {
            Set<String> there = remote.look(IndexSource.TOPIC, remote.client.indexView);
            if (there != null && !services.containsAll(there)) {
                all = all == null ? new TreeSet<>(services) : all;
                all.addAll(there);
            }
        }
        return all == null ? services : Set.copyOf(all);
    }

    @Override
    public ServiceSnapshot getSnapshot(String serviceId) {
        return widen(home.getSnapshot(serviceId));
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener) {
        return subscribe(serviceId, listener, Initial.SKIP);
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener, Initial initial) {
        return each(region -> region.subscribe(serviceId, listener, initial));
    }

    @Override
    public Subscription subscribe(String serviceId, ServiceListener listener, Initial initial, Executor executor) {
        return each(region -> region.subscribe(serviceId, listener, initial, executor));
    }

    @Override
    public Subscription subscribeServices(ServicesListener listener) {
        return each(region -> region.subscribeServices(listener));
    }

    @Override
    public SortedMap<String, ServiceSnapshot> heldSnapshots() {
        SortedMap<String, ServiceSnapshot> held = new TreeMap<>();
        home.heldSnapshots().forEach((serviceId, snapshot) -> held.put(serviceId, widen(snapshot)));
        return held;
    }

    /** The home region's status: a remote region's is its own ({@code discovery(region).status()}). */
    @Override
    public ViewStatus status() {
        return home.status();
    }

    /**
     * Completes when home has loaded the services; the remote regions load them too, in the background (a region
     * that is down must not hold up a start-up at home).
     */
    @Override
    public CompletionStage<Void> preload(Collection<String> serviceIds) {
        CompletionStage<Void> atHome = home.preload(serviceIds);
        for (Remote remote : remotes) {
            remote.client.localDiscovery().preload(serviceIds).exceptionally(failure -> null);
        }
        return atHome;
    }

    @Override
    public AsyncServiceDiscovery async() {
        return async;
    }

    /** Home's snapshot, with the other regions' instances added as the threshold says (see the class comment). */
    private ServiceSnapshot widen(ServiceSnapshot atHome) {
        String serviceId = atHome.serviceId();
        int up = countUp(atHome, 0);
        ServiceSnapshot[] parts = null;
        int count = 1;
        for (Remote remote : remotes) {
            ServiceSnapshot there = remote.look(serviceId, remote.client.serviceView); // looked at, always
            if (up < threshold && there != null && !there.instances().isEmpty()) {
                if (parts == null) {
                    parts = new ServiceSnapshot[remotes.size() + 1];
                    parts[0] = atHome;
                }
                parts[count++] = there;
                up = countUp(there, up);
            }
        }
        return parts == null ? atHome : merged(serviceId, parts, count);
    }

    /** {@code up} plus the UP instances of the snapshot, counting no further than the threshold. */
    private int countUp(ServiceSnapshot snapshot, int up) {
        for (ServiceInstance instance : snapshot.instances()) {
            if (up >= threshold) {
                break;
            }
            if (instance.status() == InstanceStatus.UP) {
                up++;
            }
        }
        return up;
    }

    /**
     * The parts as one snapshot, in region order, reused while the parts are the same objects (a view's snapshot
     * is, until its service changes). Its revision is the sum of theirs: it changes whenever one of them does.
     */
    private ServiceSnapshot merged(String serviceId, ServiceSnapshot[] parts, int count) {
        Widened last = widened.get(serviceId);
        if (last != null && last.sameParts(parts, count)) {
            return last.snapshot;
        }
        List<ServiceInstance> instances = new ArrayList<>();
        long revision = 0;
        for (int i = 0; i < count; i++) {
            instances.addAll(parts[i].instances());
            revision += parts[i].revision();
        }
        ServiceSnapshot snapshot = new ServiceSnapshot(serviceId, revision, instances);
        if (widened.size() > homeServices.size() + 16) {
            widened.keySet().retainAll(homeServices.api().held()); // forget services home's view dropped
        }
        Widened next = new Widened(Arrays.copyOf(parts, count), snapshot,
                AsyncDiscovery.keep(snapshot, InstanceFilter.UP));
        widened.put(serviceId, next);
        return snapshot;
    }

    @Override
    List<ServiceInstance> filter(ServiceSnapshot snapshot, InstanceFilter filter) {
        if (filter == InstanceFilter.ALL) {
            return snapshot.instances();
        }
        Widened last = widened.get(snapshot.serviceId());
        if (last != null && last.snapshot == snapshot) {
            return last.up;
        }
        return AsyncDiscovery.keep(snapshot, filter);
    }

    /** Subscribes in every region, home first; closing the result closes them all. */
    private Subscription each(Function<ServiceDiscovery, Subscription> subscribe) {
        List<Subscription> subscriptions = new ArrayList<>(remotes.size() + 1);
        subscriptions.add(subscribe.apply(home));
        for (Remote remote : remotes) {
            subscriptions.add(subscribe.apply(remote.client.localDiscovery()));
        }
        return () -> subscriptions.forEach(Subscription::close);
    }

    private record Widened(ServiceSnapshot[] parts, ServiceSnapshot snapshot, List<ServiceInstance> up) {
        boolean sameParts(ServiceSnapshot[] others, int count) {
            if (parts.length != count) {
                return false;
            }
            for (int i = 0; i < count; i++) {
                if (parts[i] != others[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /** One remote region's reader, and when a load of each entry it did not hold was last asked for. */
    private final class Remote {
        final RedisLodestarClient client;
        private final Map<String, Long> loadAskedAt = new ConcurrentHashMap<>();

        Remote(RedisLodestarClient client) {
            this.client = client;
        }

        /**
         * What the view holds of an entry, without waiting; when it holds nothing, asks for a load in the
         * background (at most once per command timeout: a load of a region that is down keeps retrying by itself
         * while the entry is held, so asking again only covers an entry the view let go).
         */
        <V> V look(String id, SyncedView<V, ?> view) {
            V held = view.api().getIfHeld(id);
            if (held == null) {
                long now = System.nanoTime();
                Long asked = loadAskedAt.get(id);
                if (asked == null || now - asked > retryLoadNanos) {
                    loadAskedAt.put(id, now);
                    if (loadAskedAt.size() > view.size() + 1024) {
                        loadAskedAt.keySet().retainAll(view.api().held()); // forget what the view dropped
                    }
                    view.api().loadAsync(id).whenComplete((loaded, failure) -> {
                        if (failure != null) {
                            log.debug("Region {} could not load {} yet: {}", client.options.region().orElse("?"),
                                    id, failure.toString());
                        }
                    });
                }
            }
            return held;
        }
    }

    /** The same reads without blocking: home's async read, widened (looking at a remote view never waits). */
    private final class Async implements AsyncServiceDiscovery {
        @Override
        public CompletionStage<Set<String>> getServices() {
            return home.async().getServices().thenApply(atHome -> RegionalDiscovery.this.getServices());
        }

        @Override
        public CompletionStage<List<ServiceInstance>> getInstances(String serviceId) {
            return getSnapshot(serviceId).thenApply(ServiceSnapshot::instances);
        }

        @Override
        public CompletionStage<List<ServiceInstance>> getInstances(String serviceId, InstanceFilter filter) {
            try {
                Validation.requireNonNull("filter", filter);
            } catch (InvalidArgumentException e) {
                return CompletableFuture.failedFuture(e);
            }
            return getSnapshot(serviceId).thenApply(snapshot -> filter(snapshot, filter));
        }

        @Override
        public CompletionStage<Optional<ServiceInstance>> getInstance(String serviceId, String instanceId) {
            return home.async().getInstance(serviceId, instanceId).thenCompose(validated ->
                    getSnapshot(serviceId).thenApply(snapshot -> AsyncDiscovery.find(snapshot, instanceId)));
        }

        @Override
        public CompletionStage<ServiceSnapshot> getSnapshot(String serviceId) {
            return home.async().getSnapshot(serviceId).thenApply(RegionalDiscovery.this::widen);
        }
    }
}
