package io.lodestar.redis;

import io.lettuce.core.ScriptOutputType;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.Registration;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What registry and discovery promise, on any deployment; subclasses say which Redis. The tests run at the same
 * time (see junit-platform.properties): each has its own namespace and its own clients, and no test reads, counts
 * or kills anything outside its namespace, so none can see another; most of them wait for a TTL or an idle timeout.
 */
abstract class DiscoveryContract extends NamespaceTest {
    /**
     * Held alone by the two tests that write thousands of instances, and shared by every other test: those never run
     * beside one of the two, whose load could delay a renewal past the fraction of a second a TTL of 1 s leaves it.
     */
    private static final String THOUSANDS_OF_INSTANCES = "DiscoveryContract: thousands of instances";

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void registeredInstanceIsInOwnViewAsSoonAsRegisterReturns() {
        LodestarClient client = clients.connect();
        assertThat(client.discovery().getInstances("orders")).isEmpty();

        Registration registration = client.registry().register(instance("orders", "orders-1"));

        assertThat(client.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1");
        assertThat(registration.instance().registeredAt()).isNotNull();
        assertThat(registration.revision()).isPositive();
        assertThat(client.directDiscovery().getInstances("orders")).containsExactlyElementsOf(
                client.discovery().getInstances("orders"));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void deregisteredInstanceLeavesOwnViewAsSoonAsDeregisterReturns() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));
        client.registry().register(instance("orders", "orders-2"));
        assertThat(client.discovery().getInstances("orders")).hasSize(2);

        boolean removed = client.registry().deregister("orders", "orders-1");

        assertThat(removed).isTrue();
        assertThat(client.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-2");
        assertThat(client.registry().deregister("orders", "orders-1")).isFalse();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void anotherClientsViewAndListenerSeeEveryChangeInRevisionOrder() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add); // returns once attached: no write is missed

        writer.registry().register(instance("orders", "orders-1"));
        writer.registry().setMetadata("orders", "orders-1", Map.of("zone", "eu-1"));
        writer.registry().deregister("orders", "orders-1");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(events).hasSize(3));
        assertThat(events.get(0)).isInstanceOf(InstanceRegistered.class);
        assertThat(events.get(1)).isInstanceOfSatisfying(InstanceUpdated.class, updated -> {
            assertThat(updated.instance().metadata()).containsEntry("zone", "eu-1");
            assertThat(updated.previous().metadata()).isEmpty();
        });
        assertThat(events.get(2)).isInstanceOfSatisfying(InstanceDeregistered.class, deregistered ->
                assertThat(deregistered.evicted()).as("evicted").isFalse());
        assertThat(events).extracting(ServiceEvent::revision).isSorted().doesNotHaveDuplicates();
        assertThat(events.get(2).revision() - events.get(0).revision()).isEqualTo(2);
        assertThat(reader.discovery().getInstances("orders")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aDirectReadLeavesOutAnOverdueInstanceTheSweepHasNotRemovedWhileAViewKeepsIt() {
        // given a live instance and one whose owner stopped renewing it (TTL 1 s), and no client that sweeps
        UnaryOperator<LodestarOptions.Builder> noSweep = options -> options.sweepInterval(Duration.ofDays(1));
        LodestarClient owner = clients.connect(options -> noSweep.apply(options).deregisterOnClose(false));
        owner.registry().register(instance("orders", "orders-late").toBuilder().ttl(Duration.ofSeconds(1)).build());
        LodestarClient live = clients.connect(noSweep);
        live.registry().register(instance("orders", "orders-live"));
        LodestarClient reader = clients.connect(noSweep);
        assertThat(reader.discovery().getInstances("orders")).hasSize(2);
        owner.close();

        // when its deadline passes: a direct read leaves it out, the view keeps it until an "expired" event
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(reader.directDiscovery()
                .getInstances("orders")).extracting(ServiceInstance::instanceId).containsExactly("orders-live"));
        assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-late", "orders-live");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(THOUSANDS_OF_INSTANCES)
    void aDirectReadOfMoreThanAPageLeavesOutOverdueInstancesEvenWhenMoreThanAPageOfThemAreOverdue() {
        // given a service of more than a page: persistent instances, and more than a page of instances whose owner
        // stops renewing them, and no client that sweeps
        UnaryOperator<LodestarOptions.Builder> noSweep = options -> options.sweepInterval(Duration.ofDays(1));
        LodestarClient owner = clients.connect(options -> noSweep.apply(options).deregisterOnClose(false));
        LodestarClient live = clients.connect(noSweep);
        registerAll(owner, "late-", RegistryReads.PAGE + 50, Duration.ofSeconds(2));
        List<String> liveIds = registerAll(live, "live-", 100, Duration.ZERO);
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(noSweep);
        owner.close();

        // when their deadlines pass: a direct read, page by page, leaves them all out; the view keeps them
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(reader.directDiscovery()
                .getInstances("orders")).extracting(ServiceInstance::instanceId).containsExactlyElementsOf(liveIds));
        long pages = reader.reads.pageReads.sum();
        assertThat(reader.directDiscovery().getInstances("orders")).hasSize(100);
        assertThat(reader.reads.pageReads.sum() - pages).as("pages of one direct read").isGreaterThan(1);
        assertThat(reader.discovery().getInstances("orders")).hasSize(RegistryReads.PAGE + 150);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(THOUSANDS_OF_INSTANCES)
    void aDirectReadOfMoreThanAPageLeavesOutTheOneOverdueInstanceWhicheverPageHoldsIt() {
        // given more than a page of persistent instances and one whose owner stops renewing it, no client sweeping
        UnaryOperator<LodestarOptions.Builder> noSweep = options -> options.sweepInterval(Duration.ofDays(1));
        LodestarClient owner = clients.connect(options -> noSweep.apply(options).deregisterOnClose(false));
        LodestarClient live = clients.connect(noSweep);
        List<String> liveIds = registerAll(live, "live-", RegistryReads.PAGE + 50, Duration.ZERO);
        owner.registry().register(instance("orders", "late").toBuilder().ttl(Duration.ofSeconds(1)).build());
        LodestarClient reader = clients.connect(noSweep);
        assertThat(reader.directDiscovery().getInstances("orders")).hasSize(RegistryReads.PAGE + 51);
        owner.close();

        // when its deadline passes: the direct read leaves out that one and keeps every other
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(reader.directDiscovery()
                .getInstances("orders")).extracting(ServiceInstance::instanceId).containsExactlyElementsOf(liveIds));
    }

    /** Registers {@code count} instances of "orders" named prefix + number; returns their ids, sorted. */
    private static List<String> registerAll(LodestarClient client, String prefix, int count, Duration ttl) {
        List<CompletableFuture<?>> registered = new ArrayList<>(count);
        List<String> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String id = prefix + String.format("%05d", i);
            ids.add(id);
            registered.add(client.registry().async().register(instance("orders", id).toBuilder().ttl(ttl).build())
                    .toCompletableFuture());
        }
        CompletableFuture.allOf(registered.toArray(CompletableFuture[]::new)).join();
        return ids;
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void metadataCanBeReplacedMergedAndStatusChanged() {
        LodestarClient client = clients.connect();
        client.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .metadata("zone", "eu-1").metadata("version", "1").build());

        ServiceInstance merged = client.registry().updateMetadata("orders", "orders-1", Map.of("canary", "true"),
                Set.of("version"));
        assertThat(merged.metadata()).isEqualTo(Map.of("zone", "eu-1", "canary", "true"));

        ServiceInstance replaced = client.registry().setMetadata("orders", "orders-1", Map.of("only", "this"));
        assertThat(replaced.metadata()).isEqualTo(Map.of("only", "this"));

        ServiceInstance cleared = client.registry().setMetadata("orders", "orders-1", Map.of());
        assertThat(cleared.metadata()).isEmpty();

        ServiceInstance drained = client.registry().setStatus("orders", "orders-1", InstanceStatus.OUT_OF_SERVICE);
        assertThat(drained.status()).isEqualTo(InstanceStatus.OUT_OF_SERVICE);
        assertThat(client.discovery().getInstance("orders", "orders-1")).contains(drained);
        assertThat(client.directDiscovery().getInstance("orders", "orders-1")).contains(drained);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void updatingAnUnknownInstanceNamesIt() {
        LodestarClient client = clients.connect();

        assertThatThrownBy(() -> client.registry().setMetadata("orders", "ghost", Map.of()))
                .isInstanceOf(NotFoundException.class)
                .hasMessageContaining("No instance 'ghost' of service 'orders' is registered in namespace '"
                        + clients.namespace() + "'");
        assertThatThrownBy(() -> client.registry().renew("orders", "ghost")).isInstanceOf(NotFoundException.class);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void badInputIsRejectedWithFieldValueAndRule() {
        LodestarClient client = clients.connect();

        assertThatThrownBy(() -> client.registry().deregister("bad id", "x"))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("serviceId must be").hasMessageContaining("but was 'bad id'");
        assertThatThrownBy(() -> client.registry().register(null))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("instance must be non-null");
        assertThatThrownBy(() -> client.discovery().getInstances("{tag}"))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("serviceId");
        assertThatThrownBy(() -> client.discovery().getInstance("orders", "bad id"))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("instanceId must be");
        assertThatThrownBy(() -> client.registry().setMetadata("orders", "o-1", Map.of("bad key", "v")))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("metadata key");
        assertThatThrownBy(() -> client.registry().async().deregister("", "x").toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(InvalidArgumentException.class);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void asyncRegistryCompletesWithTheSameResults() {
        LodestarClient client = clients.connect();

        Registration registration = client.registry().async().register(instance("orders", "orders-1"))
                .toCompletableFuture().join();
        assertThat(client.discovery().getInstances("orders")).hasSize(1);
        assertThat(registration.instance().instanceId()).isEqualTo("orders-1");

        assertThat(client.registry().async().deregister("orders", "orders-1").toCompletableFuture().join()).isTrue();
        assertThat(client.discovery().getInstances("orders")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void servicesAppearWithTheirFirstInstanceAndLeaveWithTheirLast() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ServicesChanged> changes = new CopyOnWriteArrayList<>();
        reader.discovery().subscribeServices(changes::add);
        assertThat(reader.discovery().getServices()).isEmpty();

        writer.registry().register(instance("orders", "orders-1"));
        writer.registry().register(instance("orders", "orders-2"));
        writer.registry().register(instance("billing", "billing-1"));
        assertThat(writer.directDiscovery().getServices()).containsExactlyInAnyOrder("orders", "billing");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(reader.discovery().getServices()).containsExactlyInAnyOrder("orders", "billing"));

        writer.registry().deregister("orders", "orders-1");
        assertThat(writer.directDiscovery().getServices()).contains("orders");
        writer.registry().deregister("orders", "orders-2");

        assertThat(writer.directDiscovery().getServices()).containsExactly("billing");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(reader.discovery().getServices()).containsExactly("billing"));
        assertThat(changes).anySatisfy(change -> assertThat(change.removed()).containsExactly("orders"));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aLateReportOfAnInstanceCannotListAServiceAgainAfterItsLastInstanceLeft() {
        RedisLodestarClient client = (RedisLodestarClient) clients.connect();
        Registration registration = client.registry().register(instance("orders", "orders-1"));
        client.registry().deregister("orders", "orders-1");
        assertThat(client.directDiscovery().getServices()).doesNotContain("orders");

        // the registration's report to the index, arriving after the removal's (a slow writer)
        Scripts.INDEX_SERVICE.run(client.backend.commands(), ScriptOutputType.INTEGER,
                client.keys.services().all(), "orders", Long.toString(registration.revision()), "1")
                .toCompletableFuture().join();

        assertThat(client.directDiscovery().getServices()).doesNotContain("orders");
        client.registry().register(instance("orders", "orders-2")); // a newer registration lists it again
        assertThat(client.directDiscovery().getServices()).containsExactly("orders");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aHeldServiceIsReadAsTheSameImmutableListUntilItChanges() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));

        List<ServiceInstance> first = client.discovery().getInstances("orders");
        List<ServiceInstance> second = client.discovery().getInstances("orders");

        assertThat(second).isSameAs(first);
        assertThatThrownBy(() -> first.add(instance("orders", "x"))).isInstanceOf(UnsupportedOperationException.class);
        client.registry().register(instance("orders", "orders-2"));
        assertThat(client.discovery().getInstances("orders")).isNotSameAs(first).hasSize(2);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void anInstanceWhoseRenewalsStopDisappearsFromEveryViewWithinTtlPlusSweepInterval() {
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false));
        LodestarClient reader = clients.connect();
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build());
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().getInstances("orders").size() == 1);

        owner.close(); // renewals stop, nothing is deregistered: like a crash

        // TTL 1 s + sweep interval 0.5 s (+ one more interval if the lock was held by the closed client) + slack
        await().atMost(Duration.ofSeconds(4)).untilAsserted(() -> {
            assertThat(reader.discovery().getInstances("orders")).isEmpty();
            assertThat(events).last().isInstanceOf(InstanceExpired.class); // listeners run on their own thread
        });
        assertThat(reader.directDiscovery().getInstances("orders")).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aRenewedInstanceStaysPastItsTtlWithoutAnyEvent() {
        LodestarClient owner = clients.connect();
        LodestarClient reader = clients.connect();
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build());
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().getInstances("orders").size() == 1);

        // three TTLs: renewals must keep it, and must not publish anything
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).untilAsserted(() -> {
            assertThat(reader.directDiscovery().getInstances("orders")).hasSize(1);
            assertThat(reader.discovery().getInstances("orders")).hasSize(1);
        });
        assertThat(events).isEmpty();
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aRenewalByAClientThatDoesNotHoldTheLeaseExtendsTheInstanceByItsOwnTtl() {
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false));
        LodestarClient other = clients.connect();
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build());
        owner.close(); // from now on only the other client's renewals keep it

        // six renewals 0.4 s apart: 2.4 s, more than twice the TTL
        for (int i = 0; i < 6; i++) {
            other.registry().renew("orders", "orders-1");
            await().pollDelay(Duration.ofMillis(400)).atMost(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertThat(other.directDiscovery().getInstances("orders")).hasSize(1));
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void anotherClientsDeregistrationSticks() {
        LodestarClient owner = clients.connect();
        LodestarClient other = clients.connect();
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build());

        assertThat(other.registry().deregister("orders", "orders-1")).isTrue();

        // the owner renews every third of the TTL: over two TTLs none of its renewals brings the instance back
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() ->
                other.directDiscovery().getInstances("orders").isEmpty());
        assertThatThrownBy(() -> owner.registry().renew("orders", "orders-1"))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("was deregistered or evicted");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void anotherClientsListenerHearsAnEvictAsADeregistrationThatSaysItWasEvicted() {
        // given an instance and a client listening to its service
        LodestarClient owner = clients.connect();
        LodestarClient operator = clients.connect();
        LodestarClient reader = clients.connect();
        owner.registry().register(instance("orders", "orders-1"));
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().getInstances("orders").size() == 1);

        // when an operator evicts it
        operator.registry().evict("orders", "orders-1");

        // then the listener hears a deregistration that says so
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(events).last()
                .isInstanceOfSatisfying(InstanceDeregistered.class, deregistered -> {
                    assertThat(deregistered.instanceId()).isEqualTo("orders-1");
                    assertThat(deregistered.evicted()).as("evicted").isTrue();
                }));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void anEvictedInstanceStaysEvictedUntilItsOwnerRegistersItAnew() {
        LodestarClient owner = clients.connect();
        LodestarClient operator = clients.connect();
        ServiceInstance hung = ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build();
        owner.registry().register(hung);

        assertThat(operator.registry().evict("orders", "orders-1")).isTrue();

        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() ->
                operator.directDiscovery().getInstances("orders").isEmpty());
        assertThat(operator.registry().evict("orders", "orders-1")).isFalse();
        owner.registry().register(hung); // a deliberate registration wins over the tombstone, and is renewed again
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() ->
                operator.directDiscovery().getInstances("orders").size() == 1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aDeregisterRacingARegisterNeverLeavesAnInstanceThatIsRenewed() {
        LodestarClient client = clients.connect();
        for (int i = 0; i < 10; i++) {
            CompletionStage<Registration> registering = client.registry().async().register(
                    ServiceInstance.builder("orders", "orders-" + i).host("h").port(1)
                            .ttl(Duration.ofSeconds(1)).build());
            client.registry().deregister("orders", "orders-" + i);
            registering.toCompletableFuture().join();
        }

        // whichever script ran last, nothing is renewed any more: within TTL + sweep all is gone, and stays gone
        await().atMost(Duration.ofSeconds(4)).until(() -> client.directDiscovery().getInstances("orders").isEmpty());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() ->
                client.directDiscovery().getInstances("orders").isEmpty());
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void closingTheClientDeregistersWhatItRegistered() {
        LodestarClient owner = clients.connect();
        LodestarClient reader = clients.connect();
        owner.registry().register(instance("orders", "orders-1"));
        owner.registry().register(ServiceInstance.builder("orders", "orders-2").host("h").port(1).persistent()
                .build());

        owner.close();

        assertThat(reader.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-2");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aDirectReadNeverReturnsAnInstancePastItsDeadlineEvenBeforeTheSweep() {
        LodestarClient owner = clients.connect(options -> options.deregisterOnClose(false)
                .sweepInterval(Duration.ofHours(1)));
        LodestarClient reader = clients.connect(options -> options.sweepInterval(Duration.ofHours(1)));
        owner.registry().register(ServiceInstance.builder("orders", "orders-1").host("h").port(1)
                .ttl(Duration.ofSeconds(1)).build());
        assertThat(reader.directDiscovery().getInstances("orders")).hasSize(1);

        owner.close();

        await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                assertThat(reader.directDiscovery().getInstances("orders")).isEmpty());
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void namespacesNeverSeeEachOthersServices() {
        LodestarClient here = clients.connect();
        try (Clients elsewhere = new Clients(redisUri())) {
            LodestarClient there = elsewhere.connect();
            here.registry().register(instance("orders", "orders-1"));
            there.registry().register(instance("orders", "orders-other"));

            assertThat(here.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactly("orders-1");
            assertThat(there.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactly("orders-other");
            assertThat(there.discovery().getServices()).containsExactly("orders");
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aServiceNobodyReadsIsDroppedFromTheViewAfterTheIdleTimeout() {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options ->
                options.idleViewTimeout(Duration.ofMillis(300)));
        writer.registry().register(instance("orders", "orders-1"));
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);
        assertThat(reader.serviceView.api().held()).containsExactly("orders");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            reader.serviceView.cleanUp();
            assertThat(reader.serviceView.api().held()).isEmpty();
        });
        // a later read loads it again, current
        writer.registry().register(instance("orders", "orders-2"));
        assertThat(reader.discovery().getInstances("orders")).hasSize(2);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aServiceReadOftenIsKeptPastTheIdleTimeoutWithoutReloading() {
        // given a view with a short idle timeout holding a service
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options ->
                options.idleViewTimeout(Duration.ofSeconds(1)));
        writer.registry().register(instance("orders", "orders-1"));
        assertThat(reader.discovery().getInstances("orders")).hasSize(1);
        RedisLodestar.bindMetrics(reader, new SimpleMeterRegistry()); // reads are counted once metrics are bound
        long readsBefore = reader.serviceView.reads.sum();

        // when it is read every 50 ms for three idle timeouts (reads only mark a bit; the view's tick reports them),
        // then before every read it is still held: it never expired (a read after expiry would load it again)
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    reader.serviceView.cleanUp();
                    boolean held = reader.serviceView.api().held().contains("orders");
                    reader.discovery().getInstances("orders");
                    return held;
                });
        assertThat(reader.serviceView.reads.sum() - readsBefore).as("reads counted").isGreaterThanOrEqualTo(30);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock(value = THOUSANDS_OF_INSTANCES, mode = ResourceAccessMode.READ)
    void aServiceWithAListenerIsKeptPastTheIdleTimeout() {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect(options ->
                options.idleViewTimeout(Duration.ofMillis(300)));
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", events::add);

        await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
            reader.serviceView.cleanUp();
            assertThat(reader.serviceView.api().held()).containsExactly("orders");
        });
        writer.registry().register(instance("orders", "orders-1"));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(events).hasSize(1));
    }
}
