package io.lodestar.redis;

import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Services as topics of a {@link SyncedView}: how a service is loaded and how each event changes it. Listeners get
 * an event only when what the view holds changes (see {@link io.lodestar.core.ServiceListener}).
 */
final class ServiceSource implements ViewSource<ServiceSnapshot, ServiceEvent> {

    private final Keys keys;
    private final RegistryReads reads;
    /** Stamped on the instances of events (null when the client names no region). */
    private final String region;
    private final Snapshots<ServiceSnapshot> snapshots;

    /** @param snapshots where the last list held of each service is kept on disk (or a store that keeps none) */
    ServiceSource(Keys keys, RegistryReads reads, String region, Snapshots<ServiceSnapshot> snapshots) {
        this.keys = keys;
        this.reads = reads;
        this.region = region;
        this.snapshots = snapshots;
    }

    @Override
    public String channel(String serviceId) {
        return keys.service(serviceId).channel();
    }

    /**
     * An event's fields without a map of its instance: the instance stays text ({@link InstanceReader.Nested}) until
     * the view applies the event, then is read straight into a {@link ServiceInstance} ({@link InstanceReader}).
     */
    @Override
    public Map<String, Object> read(String json) {
        return InstanceReader.event(json);
    }

    @Override
    public CompletionStage<SyncedView.Versioned<ServiceSnapshot>> load(String serviceId) {
        return reads.serviceForView(serviceId);
    }

    /** Services load in batches: on a cluster those of one bucket (one slot: keys and channels), else any. */
    @Override
    public Object group(String serviceId) {
        return reads.batchGroup(serviceId);
    }

    @Override
    public List<CompletableFuture<SyncedView.Versioned<ServiceSnapshot>>> loadAll(List<String> serviceIds,
            List<SyncedView.Versioned<ServiceSnapshot>> known) {
        return reads.servicesForView(serviceIds, known);
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Void>> stamp(String serviceId) {
        return reads.serviceStamp(serviceId);
    }

    @Override
    public ViewSource.Batch<ServiceSnapshot, ServiceEvent> batch(String serviceId,
                                                                 SyncedView.Versioned<ServiceSnapshot> current) {
        return new Batch(serviceId, current.value().instances(), region);
    }

    /** The last list held of a service, from the snapshot directory: served when Redis cannot be reached. */
    @Override
    public SyncedView.Versioned<ServiceSnapshot> restore(String serviceId) {
        return snapshots.read(serviceId);
    }

    @Override
    public void held(String serviceId, SyncedView.Versioned<ServiceSnapshot> value) {
        snapshots.save(serviceId, value);
    }

    /**
     * How long the service index keeps a service Redis lost: as long as the instances the view holds of it are kept
     * (the grace + their longest TTL), or, for a service this client never read, the grace + the default TTL; an
     * owner with a longer TTL writes it back at its next renewal, which adds it to the index again.
     */
    static Duration keptFor(ServiceSnapshot held) {
        Duration longest = held == null ? Validation.DEFAULT_TTL : held.instances().stream()
                .map(ServiceInstance::ttl).max(Duration::compareTo).orElse(Duration.ZERO);
        return Sweeper.RECONNECT_ALLOWANCE.plus(longest);
    }

    /**
     * The instances Redis lost, each kept until its owner had the time to register it again: the outage grace the
     * sweep allows owners ({@link Sweeper#RECONNECT_ALLOWANCE}) plus the instance's TTL (a renewal every third of it
     * finds the instance gone and registers it again). A persistent instance (TTL zero) is renewed by nobody: the
     * grace alone.
     */
    @Override
    public Map<String, Duration> lost(String serviceId, ServiceSnapshot held, ServiceSnapshot loaded) {
        Set<String> present = new HashSet<>();
        loaded.instances().forEach(instance -> present.add(instance.instanceId()));
        Map<String, Duration> lost = new HashMap<>();
        for (ServiceInstance instance : held.instances()) {
            if (!present.contains(instance.instanceId())) {
                lost.put(instance.instanceId(), Sweeper.RECONNECT_ALLOWANCE.plus(instance.ttl()));
            }
        }
        return lost;
    }

    @Override
    public ServiceSnapshot withKept(String serviceId, ServiceSnapshot loaded, ServiceSnapshot from, Set<String> items) {
        SortedMap<String, ServiceInstance> merged = new TreeMap<>();
        from.instances().stream().filter(instance -> items.contains(instance.instanceId()))
                .forEach(instance -> merged.put(instance.instanceId(), instance));
        loaded.instances().forEach(instance -> merged.put(instance.instanceId(), instance));
        return new ServiceSnapshot(serviceId, loaded.revision(), List.copyOf(merged.values()));
    }

    @Override
    public String item(ViewSource.Message message) {
        return message.fields().get("id") instanceof String instanceId ? instanceId : null;
    }

    /** Each kept instance whose owner did not register it again in time expired: one event each. */
    @Override
    public ViewSource.Dropped<ServiceSnapshot, ServiceEvent> drop(String serviceId,
            SyncedView.Versioned<ServiceSnapshot> current, List<String> items) {
        Set<String> gone = new HashSet<>(items);
        List<ServiceInstance> left = current.value().instances().stream()
                .filter(instance -> !gone.contains(instance.instanceId())).toList();
        List<ServiceEvent> events = current.value().instances().stream()
                .filter(instance -> gone.contains(instance.instanceId()))
                .<ServiceEvent>map(instance -> new InstanceExpired(serviceId, current.revision(),
                        instance.instanceId()))
                .toList();
        return new ViewSource.Dropped<>(new ServiceSnapshot(serviceId, current.value().revision(), left), events);
    }

    @Override
    public ServiceEvent resynced(String serviceId, SyncedView.Versioned<ServiceSnapshot> before,
                                 SyncedView.Versioned<ServiceSnapshot> after) {
        if (before.value().instances().equals(after.value().instances())) {
            return null; // the revision moved on, but a listener's state is already right
        }
        return new ServiceResynced(serviceId, after.revision(), after.value());
    }

    /**
     * A service's events applied as changes beside the held list (sorted by instance id), merged into a new list
     * once at the end: each event costs a binary search and a map update, whatever the size of the service, and
     * the batch one pass over the list.
     */
    private static final class Batch implements ViewSource.Batch<ServiceSnapshot, ServiceEvent> {
        private final String serviceId;
        private final List<ServiceInstance> held;
        private final String region;
        /** By instance id, the instances the batch registered or updated, and null for those it removed. */
        private final SortedMap<String, ServiceInstance> changes = new TreeMap<>();
        private final List<ServiceEvent> events = new ArrayList<>();
        private long revision;

        Batch(String serviceId, List<ServiceInstance> held, String region) {
            this.serviceId = serviceId;
            this.held = held;
            this.region = region;
        }

        @Override
        public void apply(ViewSource.Message message) {
            Map<String, Object> fields = message.fields();
            String type = (String) fields.get("type");
            // Anyone allowed to publish on the channel can forge an event: its id is checked like a user's.
            String instanceId = Validation.requireInstanceId((String) fields.get("id"));
            long at = message.revision();
            // everything is read and checked before the batch changes: a malformed event leaves it as it was
            ServiceInstance instance = switch (type) {
                case "registered", "updated" -> instance(serviceId, instanceId, fields.get("instance"));
                case "deregistered", "expired" -> null;
                // a newer client's event type: the view cannot know what changed, so it re-reads the service
                default -> throw new IllegalArgumentException("unknown event type " + Validation.show(type));
            };
            boolean evicted = evicted(fields.get("evicted"));
            ServiceInstance previous = find(instanceId);
            changes.put(instanceId, instance);
            revision = at;
            ServiceEvent event = switch (type) {
                // registered again while held (its owner's renewal after Redis lost it): an update, if anything
                case "registered" -> previous == null ? new InstanceRegistered(serviceId, at, instance)
                        : previous.equals(instance) ? null : new InstanceUpdated(serviceId, at, previous, instance);
                case "updated" -> previous == null ? new InstanceRegistered(serviceId, at, instance)
                        : new InstanceUpdated(serviceId, at, previous, instance);
                // A removal of an instance this view does not hold changes nothing a listener knows: not announced.
                case "deregistered" -> previous == null ? null
                        : new InstanceDeregistered(serviceId, at, instanceId, evicted);
                default -> previous == null ? null : new InstanceExpired(serviceId, at, instanceId);
            };
            if (event != null) {
                events.add(event);
            }
        }

        /**
         * Whether a removal was an evict: {@code "evicted":true} (deregister_instance.lua). Missing on a deregister
         * and on every removal an earlier version wrote: false; anything but a boolean is malformed.
         */
        private static boolean evicted(Object field) {
            if (field == null || field instanceof Boolean) {
                return Boolean.TRUE.equals(field);
            }
            throw new IllegalArgumentException("the event's evicted is not a boolean: " + Validation.show(field));
        }

        /** The event's instance, read from its text ({@link #read} keeps it as text); anything else is malformed. */
        private ServiceInstance instance(String serviceId, String instanceId, Object stored) {
            if (stored instanceof InstanceReader.Nested nested) {
                return new InstanceReader(nested.json()).read(serviceId, instanceId, region);
            }
            throw new IllegalArgumentException("the event's instance is not an object: " + Validation.show(stored));
        }

        /** The instance as the batch has it so far, or null. */
        private ServiceInstance find(String instanceId) {
            if (changes.containsKey(instanceId)) {
                return changes.get(instanceId);
            }
            int at = indexOf(instanceId);
            return at >= 0 ? held.get(at) : null;
        }

        /** Binary search of the held list by instance id: its index, or a negative number when not held. */
        private int indexOf(String instanceId) {
            return indexOf(instanceId, 0);
        }

        /**
         * Binary search of the held list from {@code from} on: the index of the instance, or
         * {@code -(insertion point) - 1} when it is not held.
         */
        private int indexOf(String instanceId, int from) {
            int low = from;
            int high = held.size() - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                int order = held.get(mid).instanceId().compareTo(instanceId);
                if (order < 0) {
                    low = mid + 1;
                } else if (order > 0) {
                    high = mid - 1;
                } else {
                    return mid;
                }
            }
            return -low - 1;
        }

        /**
         * The held list and the changes merged, in instance id order: a binary search per change, and the runs of
         * held instances between two changes copied into an array of the exact size, which {@link List#of} copies
         * once more and {@link ServiceSnapshot} then keeps as it is (it copies only lists it cannot trust).
         */
        @Override
        public ServiceSnapshot value() {
            int size = held.size();
            for (Map.Entry<String, ServiceInstance> change : changes.entrySet()) {
                boolean wasHeld = indexOf(change.getKey()) >= 0;
                size += (change.getValue() != null ? 1 : 0) - (wasHeld ? 1 : 0);
            }
            ServiceInstance[] instances = new ServiceInstance[size];
            int filled = 0;
            int from = 0;
            for (Map.Entry<String, ServiceInstance> change : changes.entrySet()) {
                int at = indexOf(change.getKey(), from);
                int before = at >= 0 ? at : -at - 1;
                filled = copy(from, before, instances, filled);
                if (change.getValue() != null) {
                    instances[filled++] = change.getValue();
                }
                from = at >= 0 ? at + 1 : before; // a held instance the change replaces or removes is skipped
            }
            copy(from, held.size(), instances, filled);
            return new ServiceSnapshot(serviceId, revision, List.of(instances));
        }

        /** Copies held instances [from, to) into {@code into} at {@code at}; returns the next free index. */
        private int copy(int from, int to, ServiceInstance[] into, int at) {
            for (int i = from; i < to; i++) {
                into[at++] = held.get(i);
            }
            return at;
        }

        @Override
        public List<ServiceEvent> events() {
            return events;
        }
    }
}
