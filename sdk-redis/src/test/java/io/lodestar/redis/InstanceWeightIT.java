package io.lodestar.redis;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.event.InstanceUpdated;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An operator changes a registered instance's weight ({@code setWeight}): every view hears it, weighted load
 * balancing follows it, and the owner's lease treats it as it treats an operator's metadata change.
 */
class InstanceWeightIT extends NamespaceTest {
    private static final Duration CONVERGENCE = Duration.ofSeconds(10);

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aWeightChangeReachesEveryViewAsAnUpdate() {
        // given an instance of weight 100 and another client that watches its service
        LodestarClient owner = clients.connect();
        owner.registry().register(instance("orders", "orders-1"));
        LodestarClient watcher = clients.connect();
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        watcher.discovery().subscribe("orders", heard::add);

        // when an operator's client sets its weight
        LodestarClient operator = clients.connect();
        ServiceInstance changed = operator.registry().setWeight("orders", "orders-1", 7);

        // then the answer, the operator's own view (read-your-writes), Redis and the watcher all have the new weight
        assertThat(changed.weight()).isEqualTo(7);
        assertThat(operator.discovery().getInstance("orders", "orders-1")).contains(changed);
        assertThat(operator.directDiscovery().getInstance("orders", "orders-1")).contains(changed);
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(heard).filteredOn(InstanceUpdated.class::isInstance)
                .singleElement().satisfies(event -> {
                    InstanceUpdated updated = (InstanceUpdated) event;
                    assertThat(updated.previous().weight()).isEqualTo(100);
                    assertThat(updated.instance()).isEqualTo(changed);
                }));
        assertThat(watcher.discovery().getInstance("orders", "orders-1")).contains(changed);
    }

    @Test
    void settingTheWeightAnInstanceAlreadyHasPublishesNothing() {
        // given an instance of weight 100 and a watcher
        LodestarClient client = clients.connect();
        long registered = client.registry().register(instance("orders", "orders-1")).revision();
        LodestarClient watcher = clients.connect();
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        watcher.discovery().subscribe("orders", heard::add);

        // when its weight is set to 100, then its metadata changed
        ServiceInstance same = client.registry().setWeight("orders", "orders-1", 100);
        client.registry().setMetadata("orders", "orders-1", Map.of("zone", "eu-1"));

        // then the watcher hears only the metadata change, at the revision right after the registration
        assertThat(same.weight()).isEqualTo(100);
        await().atMost(CONVERGENCE).until(() -> heard.stream().anyMatch(InstanceUpdated.class::isInstance));
        assertThat(heard).filteredOn(InstanceUpdated.class::isInstance).singleElement()
                .isInstanceOfSatisfying(InstanceUpdated.class, updated -> {
                    assertThat(updated.instance().metadata()).containsEntry("zone", "eu-1");
                    assertThat(updated.revision()).isEqualTo(registered + 1);
                });
    }

    @Test
    void weightedBalancingFollowsAWeightChange() {
        // given two instances of weight 1 and 9 and a weighted load balancer over a view of them
        LodestarClient owner = clients.connect();
        owner.registry().register(instance("orders", "light").toBuilder().weight(1).build());
        owner.registry().register(instance("orders", "heavy").toBuilder().weight(9).build());
        LodestarClient caller = clients.connect();
        LoadBalancer balancer = LoadBalancers.weightedRandom().seed(42).build();
        assertThat(shareOf("light", balancer, caller)).as("before").isBetween(0.05, 0.15); // 0.10 expected

        // when an operator swaps their weights
        LodestarClient operator = clients.connect();
        operator.registry().setWeight("orders", "light", 9);
        operator.registry().setWeight("orders", "heavy", 1);

        // then the caller's view has both changes, and the picks follow the new weights
        await().atMost(CONVERGENCE).until(() -> caller.discovery().getInstances("orders").stream()
                .allMatch(instance -> instance.weight() == (instance.instanceId().equals("light") ? 9 : 1)));
        assertThat(shareOf("light", balancer, caller)).as("after").isBetween(0.85, 0.95); // 0.90 expected
    }

    @Test
    void settingTheWeightOfAnUnknownInstanceNamesIt() {
        LodestarClient client = clients.connect();

        assertThatThrownBy(() -> client.registry().setWeight("orders", "ghost", 5))
                .isInstanceOf(NotFoundException.class)
                .hasMessageContaining("No instance 'ghost' of service 'orders' is registered in namespace '"
                        + clients.namespace() + "'");
        assertThatThrownBy(() -> client.registry().async().setWeight("orders", "ghost", 5).toCompletableFuture()
                .join()).isInstanceOf(CompletionException.class).hasCauseInstanceOf(NotFoundException.class);
    }

    @Test
    void aWeightOutsideTheRangeIsRejectedAsRegistrationRejectsIt() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));

        assertThatThrownBy(() -> client.registry().setWeight("orders", "orders-1", -1))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("weight must be between 0 and 10000, but was -1");
        assertThatThrownBy(() -> client.registry().async().setWeight("orders", "orders-1", 10_001)
                .toCompletableFuture().join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("weight must be between 0 and 10000, but was 10001");
        assertThat(client.directDiscovery().getInstance("orders", "orders-1")).hasValueSatisfying(
                instance -> assertThat(instance.weight()).isEqualTo(100));
    }

    @Test
    void theAsyncRegistrySetsTheWeightToo() {
        LodestarClient client = clients.connect();
        client.registry().register(instance("orders", "orders-1"));

        ServiceInstance changed = client.registry().async().setWeight("orders", "orders-1", 0)
                .toCompletableFuture().join();

        assertThat(changed.weight()).isZero();
        assertThat(client.discovery().getInstance("orders", "orders-1")).contains(changed);
    }

    @Test
    void anOwnerThatRegistersAgainAfterDataLossRestoresItsOwnWeightAsItDoesItsOwnMetadata() {
        // given an instance of weight 1 renewed by its owner, whose weight and metadata an operator changed
        LodestarClient owner = clients.connect();
        owner.registry().register(instance("orders", "orders-1").toBuilder().weight(1).ttl(Duration.ofSeconds(1))
                .build());
        LodestarClient operator = clients.connect();
        operator.registry().setWeight("orders", "orders-1", 9);
        operator.registry().setMetadata("orders", "orders-1", Map.of("drained", "yes"));

        // when Redis loses the service's keys
        redis().del(keys().service("orders").all());

        // then the owner's lease registers its own registration again: its weight and metadata, not the operator's
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(
                operator.directDiscovery().getInstance("orders", "orders-1")).hasValueSatisfying(instance -> {
                    assertThat(instance.weight()).isEqualTo(1);
                    assertThat(instance.metadata()).isEmpty();
                }));
    }

    @Test
    void aWeightChangeMadeThroughTheOwnersClientIsWhatItsLeaseRegistersAgain() {
        // given an instance of weight 1 whose owner's client changed its weight and metadata
        LodestarClient owner = clients.connect();
        owner.registry().register(instance("orders", "orders-1").toBuilder().weight(1).ttl(Duration.ofSeconds(1))
                .build());
        owner.registry().setWeight("orders", "orders-1", 9);
        owner.registry().setMetadata("orders", "orders-1", Map.of("drained", "yes"));

        // when Redis loses the service's keys
        redis().del(keys().service("orders").all());

        // then the lease registers the instance as it was last changed
        LodestarClient reader = clients.connect();
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(
                reader.directDiscovery().getInstance("orders", "orders-1")).hasValueSatisfying(instance -> {
                    assertThat(instance.weight()).isEqualTo(9);
                    assertThat(instance.metadata()).containsEntry("drained", "yes");
                }));
    }

    /** The share of 10 000 picks over the caller's current view of orders that went to {@code instanceId}. */
    private static double shareOf(String instanceId, LoadBalancer balancer, LodestarClient caller) {
        int picks = 10_000;
        long hits = 0;
        for (int i = 0; i < picks; i++) {
            if (balancer.choose(caller.discovery().getInstances("orders")).instanceId().equals(instanceId)) {
                hits++;
            }
        }
        return (double) hits / picks;
    }
}
