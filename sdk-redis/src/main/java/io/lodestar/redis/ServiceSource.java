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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Services as topics of a {@link SyncedView}: how a service is loaded and how each event changes it. Listeners get
 * an event only when what the view holds changes (see {@link io.lodestar.core.ServiceListener}).
 */
final class ServiceSource implements SyncedView.Source<ServiceSnapshot, ServiceEvent> {
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
        return reads.serviceForView(serviceId);
    }

    /** Services load in batches: on a cluster those of one bucket (one slot: keys and channels), else any. */
    @Override
    public Object group(String serviceId) {
        return reads.batchGroup(serviceId);
    }

    @Override
    public List<CompletableFuture<SyncedView.Versioned<ServiceSnapshot>>> loadAll(List<String> serviceIds) {
        return reads.servicesForView(serviceIds);
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
    @SuppressWarnings("unchecked")
    public SyncedView.Applied<ServiceSnapshot, ServiceEvent> apply(String serviceId,
                                                                    SyncedView.Versioned<ServiceSnapshot> current,
                                                                    SyncedView.Message message) {
        Map<String, Object> fields = message.fields();
        String type = (String) fields.get("type");
        // Anyone allowed to publish on the channel can forge an event: its id is checked like a user's.
        String instanceId = Validation.requireInstanceId((String) fields.get("id"));
        long revision = message.revision();
        List<ServiceInstance> instances = new ArrayList<>(current.value().instances());
        ServiceInstance previous = remove(instances, instanceId);
        ServiceEvent event;
        switch (type) {
            case "registered", "updated" -> {
                ServiceInstance instance = Json.instance(serviceId, instanceId,
                        (Map<String, Object>) fields.get("instance"));
                insertSorted(instances, instance);
                event = previous == null || "registered".equals(type)
                        ? new InstanceRegistered(serviceId, revision, instance)
                        : new InstanceUpdated(serviceId, revision, previous, instance);
            }
            // A removal of an instance this view does not hold changes nothing a listener knows: not announced.
            case "deregistered" -> event = previous == null ? null
                    : new InstanceDeregistered(serviceId, revision, instanceId);
            case "expired" -> event = previous == null ? null : new InstanceExpired(serviceId, revision, instanceId);
            // a newer client's event type: the view cannot know what changed, so it re-reads the service
            default -> throw new IllegalArgumentException("unknown event type " + Validation.show(type));
        }
        return new SyncedView.Applied<>(new ServiceSnapshot(serviceId, revision, instances), event);
    }

    @Override
    public ServiceEvent resynced(String serviceId, SyncedView.Versioned<ServiceSnapshot> before,
                                 SyncedView.Versioned<ServiceSnapshot> after) {
        if (before.value().instances().equals(after.value().instances())) {
            return null; // the revision moved on, but a listener's state is already right
        }
        return new ServiceResynced(serviceId, after.revision(), after.value());
    }

    private static ServiceInstance remove(List<ServiceInstance> instances, String instanceId) {
        for (int i = 0; i < instances.size(); i++) {
            if (instances.get(i).instanceId().equals(instanceId)) {
                return instances.remove(i);
            }
        }
        return null;
    }

    private static void insertSorted(List<ServiceInstance> instances, ServiceInstance instance) {
        int at = 0;
        while (at < instances.size() && instances.get(at).instanceId().compareTo(instance.instanceId()) < 0) {
            at++;
        }
        instances.add(at, instance);
    }
}
