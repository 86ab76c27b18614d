package io.lodestar.core;

import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Adapters: one method per event type, so a listener never switches over sealed types. */
class ListenerAdaptersTest {
    private static final ServiceInstance INSTANCE = ServiceInstance.builder("orders", "orders-1").host("h").port(1)
            .build();
    private static final ConfigEntry ENTRY = new ConfigEntry("app", "a", ConfigFormat.TEXT, 2, "hash",
            Instant.EPOCH, Instant.EPOCH);

    @Test
    void aServiceAdapterCallsTheMethodOfEachEventType() {
        List<String> calls = new ArrayList<>();
        ServiceEventAdapter adapter = new ServiceEventAdapter() {
            @Override
            public void onRegistered(InstanceRegistered event) {
                calls.add("registered@" + event.revision());
            }

            @Override
            public void onUpdated(InstanceUpdated event) {
                calls.add("updated@" + event.revision());
            }

            @Override
            public void onDeregistered(InstanceDeregistered event) {
                calls.add("deregistered@" + event.revision());
            }

            @Override
            public void onExpired(InstanceExpired event) {
                calls.add("expired@" + event.revision());
            }

            @Override
            public void onResynced(ServiceResynced event) {
                calls.add("resynced@" + event.revision());
            }
        };

        for (ServiceEvent event : List.of(new InstanceRegistered("orders", 1, INSTANCE),
                new InstanceUpdated("orders", 2, INSTANCE, INSTANCE), new InstanceDeregistered("orders", 3, "orders-1"),
                new InstanceExpired("orders", 4, "orders-1"),
                new ServiceResynced("orders", 5, ServiceSnapshot.empty("orders")))) {
            adapter.onEvent(event);
        }

        assertThat(calls).containsExactly("registered@1", "updated@2", "deregistered@3", "expired@4", "resynced@5");
    }

    @Test
    void methodsNotOverriddenDoNothing() {
        List<String> calls = new ArrayList<>();
        ServiceEventAdapter onlyExpiries = new ServiceEventAdapter() {
            @Override
            public void onExpired(InstanceExpired event) {
                calls.add(event.instanceId());
            }
        };

        onlyExpiries.onEvent(new InstanceRegistered("orders", 1, INSTANCE));
        onlyExpiries.onEvent(new InstanceExpired("orders", 2, "orders-1"));

        assertThat(calls).containsExactly("orders-1");
    }

    @Test
    void aConfigAdapterCallsTheMethodOfEachEventType() {
        List<String> calls = new ArrayList<>();
        ConfigEventAdapter adapter = new ConfigEventAdapter() {
            @Override
            public void onChanged(ConfigChanged event) {
                calls.add("changed@" + event.version());
            }

            @Override
            public void onRolledBack(ConfigRolledBack event) {
                calls.add("rolledBack@" + event.version() + "<-" + event.fromVersion());
            }

            @Override
            public void onRemoved(ConfigRemoved event) {
                calls.add("removed@" + event.version());
            }
        };

        for (ConfigEvent event : List.of(new ConfigChanged("app", 2, ENTRY), new ConfigRolledBack("app", 3, 1, ENTRY),
                new ConfigRemoved("app", 4))) {
            adapter.onEvent(event);
        }

        assertThat(calls).containsExactly("changed@2", "rolledBack@3<-1", "removed@4");
    }

    @Test
    void aLambdaStillMakesAListener() {
        List<ServiceEvent> events = new ArrayList<>();
        ServiceListener listener = events::add;

        listener.onEvent(new InstanceExpired("orders", 1, "orders-1"));

        assertThat(events).hasSize(1);
    }
}
