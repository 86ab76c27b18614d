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

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

/**
 * Services as topics of a {@link SyncedView}: how a service is loaded and how each event changes it. Listeners get
 * an event only when what the view holds changes (see {@link io.lodestar.core.ServiceListener}).
 */
final class ServiceSource implements SyncedView.Source<ServiceSnapshot, ServiceEvent> {
    private static final Comparator<ServiceInstance> BY_ID = Comparator.comparing(ServiceInstance::instanceId);

    private final Keys keys;
    private final RegistryReads reads;

    ServiceSource(Keys keys, RegistryReads reads) {
        this.keys = keys;
        this.reads = reads;
    }

    @Override
    public String channel(String serviceId) {
        return keys.service(serviceId).channel();
    }

    @Override
    public CompletionStage<SyncedView.Versioned<ServiceSnapshot>> load(String serviceId) {
        return reads.serviceWithDigest(serviceId, false).thenApply(ServiceSource::sortedById);
    }

    /**
     * The loaded service with its instances in {@link String#compareTo} order of their ids, which a {@link Batch}
     * searches by. Redis sorts them already, but with the server's collation (a locale may order {@code -} and
     * case differently): one pass checks, and only a list out of order is sorted again.
     */
    static SyncedView.Versioned<ServiceSnapshot> sortedById(SyncedView.Versioned<ServiceSnapshot> loaded) {
        List<ServiceInstance> instances = loaded.value().instances();
        for (int i = 1; i < instances.size(); i++) {
            if (instances.get(i - 1).instanceId().compareTo(instances.get(i).instanceId()) > 0) {
                List<ServiceInstance> sorted = new ArrayList<>(instances);
                sorted.sort(BY_ID);
                return new SyncedView.Versioned<>(loaded.revision(), new ServiceSnapshot(loaded.value().serviceId(),
                        loaded.value().revision(), sorted), loaded.digest(), loaded.incarnation());
            }
        }
        return loaded;
    }

    @Override
    public CompletionStage<SyncedView.Versioned<Void>> stamp(String serviceId) {
        return reads.serviceStamp(serviceId);
    }

    @Override
    public CompletionStage<Long> revision(String serviceId) {
        return reads.serviceRevision(serviceId);
    }

    @Override
    public SyncedView.Batch<ServiceSnapshot, ServiceEvent> batch(String serviceId,
                                                                 SyncedView.Versioned<ServiceSnapshot> current) {
        return new Batch(serviceId, current.value().instances());
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
    private static final class Batch implements SyncedView.Batch<ServiceSnapshot, ServiceEvent> {
        private final String serviceId;
        private final List<ServiceInstance> held;
        /** By instance id, the instances the batch registered or updated, and null for those it removed. */
        private final SortedMap<String, ServiceInstance> changes = new TreeMap<>();
        private final List<ServiceEvent> events = new ArrayList<>();
        private long revision;

        Batch(String serviceId, List<ServiceInstance> held) {
            this.serviceId = serviceId;
            this.held = held;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void apply(SyncedView.Message message) {
            Map<String, Object> fields = message.fields();
            String type = (String) fields.get("type");
            // Anyone allowed to publish on the channel can forge an event: its id is checked like a user's.
            String instanceId = Validation.requireInstanceId((String) fields.get("id"));
            long at = message.revision();
            // everything is read and checked before the batch changes: a malformed event leaves it as it was
            ServiceInstance instance = switch (type) {
                case "registered", "updated" -> Json.instance(serviceId, instanceId,
                        (Map<String, Object>) fields.get("instance"));
                case "deregistered", "expired" -> null;
                // a newer client's event type: the view cannot know what changed, so it re-reads the service
                default -> throw new IllegalArgumentException("unknown event type " + Validation.show(type));
            };
            ServiceInstance previous = find(instanceId);
            changes.put(instanceId, instance);
            revision = at;
            ServiceEvent event = switch (type) {
                case "registered" -> new InstanceRegistered(serviceId, at, instance);
                case "updated" -> previous == null ? new InstanceRegistered(serviceId, at, instance)
                        : new InstanceUpdated(serviceId, at, previous, instance);
                // A removal of an instance this view does not hold changes nothing a listener knows: not announced.
                case "deregistered" -> previous == null ? null : new InstanceDeregistered(serviceId, at, instanceId);
                default -> previous == null ? null : new InstanceExpired(serviceId, at, instanceId);
            };
            if (event != null) {
                events.add(event);
            }
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
            int low = 0;
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
            return -1;
        }

        /** The held list and the changes merged, in instance id order. */
        @Override
        public ServiceSnapshot value() {
            List<ServiceInstance> instances = new ArrayList<>(held.size() + changes.size());
            Iterator<Map.Entry<String, ServiceInstance>> changed = changes.entrySet().iterator();
            Map.Entry<String, ServiceInstance> change = changed.hasNext() ? changed.next() : null;
            for (ServiceInstance instance : held) {
                while (change != null && change.getKey().compareTo(instance.instanceId()) < 0) {
                    addIfPresent(instances, change);
                    change = changed.hasNext() ? changed.next() : null;
                }
                if (change != null && change.getKey().equals(instance.instanceId())) {
                    addIfPresent(instances, change); // replaced or removed by the batch
                    change = changed.hasNext() ? changed.next() : null;
                } else {
                    instances.add(instance);
                }
            }
            while (change != null) {
                addIfPresent(instances, change);
                change = changed.hasNext() ? changed.next() : null;
            }
            return new ServiceSnapshot(serviceId, revision, instances);
        }

        private static void addIfPresent(List<ServiceInstance> instances, Map.Entry<String, ServiceInstance> change) {
            if (change.getValue() != null) {
                instances.add(change.getValue());
            }
        }

        @Override
        public List<ServiceEvent> events() {
            return events;
        }
    }
}
