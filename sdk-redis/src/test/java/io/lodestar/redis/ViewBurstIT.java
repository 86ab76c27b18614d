package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Writes in a burst, faster than a view applies them one by one: the events that wait for the view thread are
 * applied in batches, and the view still converges on exactly what Redis holds, with every change heard by its
 * listeners, in order. (No timing is asserted beyond the bound every wait has.)
 */
class ViewBurstIT extends NamespaceTest {
    private static final int INSTANCES = 5_000;
    private static final int SERVICES = 3_000;
    private static final Duration CONVERGES = Duration.ofSeconds(60);

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aViewOfAServiceConvergesOnThousandsOfInstancesRegisteredInABurst() throws Exception {
        // given a reader that holds the service and listens to it
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", heard::add);
        assertThat(reader.discovery().getInstances("orders")).isEmpty();

        // when a writer registers thousands of its instances as fast as it can
        List<ServiceInstance> instances = new ArrayList<>();
        Set<String> ids = new TreeSet<>();
        for (int i = 0; i < INSTANCES; i++) {
            ServiceInstance instance = ServiceInstance.builder("orders", String.format("orders-%05d", i))
                    .host("10.0." + (i / 250) + "." + (i % 250 + 1)).port(8080).persistent().build();
            instances.add(instance);
            ids.add(instance.instanceId());
        }
        registerAll(writer, instances);

        // then the view holds exactly them, in id order, as Redis does, and its listener heard each registration once, in order
        await().atMost(CONVERGES).untilAsserted(() -> assertThat(reader.discovery().getInstances("orders"))
                .extracting(ServiceInstance::instanceId).containsExactlyElementsOf(ids));
        assertThat(reader.discovery().getInstances("orders")).as("the same instances as Redis holds")
                .containsExactlyElementsOf(writer.directDiscovery().getInstances("orders"));
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() >= INSTANCES);
        assertThat(heard).hasSize(INSTANCES).allSatisfy(event -> assertThat(event).isInstanceOf(
                InstanceRegistered.class));
        assertThat(heard).extracting(event -> ((InstanceRegistered) event).instance().instanceId())
                .doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(ids);
        List<Long> revisions = heard.stream().map(ServiceEvent::revision).toList();
        assertThat(revisions).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aViewOfTheServiceIndexConvergesOnThousandsOfServicesRegisteredInABurst() throws Exception {
        // given a reader that holds the service index and listens to it
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ServicesChanged> heard = new CopyOnWriteArrayList<>();
        reader.discovery().subscribeServices(heard::add);
        assertThat(reader.discovery().getServices()).isEmpty();

        // when a writer registers the first instance of thousands of services as fast as it can
        List<ServiceInstance> instances = new ArrayList<>();
        Set<String> services = new HashSet<>();
        for (int i = 0; i < SERVICES; i++) {
            String service = "svc-" + i;
            instances.add(ServiceInstance.builder(service, service + "-1").host("10.0.0.1").port(8080)
                    .persistent().build());
            services.add(service);
        }
        registerAll(writer, instances);

        // then the index view holds exactly them, and its listener heard each service added (in one change or many)
        await().atMost(CONVERGES).untilAsserted(() ->
                assertThat(reader.discovery().getServices()).containsExactlyInAnyOrderElementsOf(services));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(heard).isNotEmpty()
                .last().satisfies(last -> assertThat(last.services()).hasSize(SERVICES)));
        List<String> added = heard.stream().flatMap(change -> change.added().stream()).toList();
        assertThat(added).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(services);
        assertThat(heard).allSatisfy(change -> assertThat(change.removed()).isEmpty());
        assertThat(heard).extracting(change -> change.services().size()).isSorted();
    }

    /** Registers through the async API, many calls in flight: a burst no view keeps up with one event at a time. */
    private static void registerAll(LodestarClient writer, List<ServiceInstance> instances) throws Exception {
        Semaphore inFlight = new Semaphore(128);
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (ServiceInstance instance : instances) {
            assertThat(inFlight.tryAcquire(10, TimeUnit.SECONDS)).as("a register call returned").isTrue();
            pending.add(writer.registry().async().register(instance).toCompletableFuture()
                    .whenComplete((registration, failure) -> inFlight.release()));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }
}
