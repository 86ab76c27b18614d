package io.lodestar.redis;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.InstanceFilter;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.RedisServer;
import io.lodestar.test.StallingRelay;
import io.lodestar.test.TestRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Regions without a sync server: each region has its own Redis (here, private local servers), a client writes to
 * its home region and reads the others, and fails over to them as its options say.
 */
class RegionsIT {
    /** The bound the issue sets for routing away from home and back. */
    private static final Duration FAILOVER = Duration.ofSeconds(1);
    private static final Duration CONVERGENCE = Duration.ofSeconds(15);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final RedisServer east = start(TestRedis.startStandalone());
    private final RedisServer west = start(TestRedis.startStandalone());
    private final Clients clients = new Clients(east.uri());

    /** Clients first (they deregister while their Redis still runs), then relays and servers. */
    @AfterEach
    void closeAll() throws Exception {
        clients.close();
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void aCallerWithNoUpInstanceAtHomeRoutesToTheNextRegionWithinOneSecond() {
        LodestarClient eastWriter = clients.connect(home("east"));
        writer(west, "west").registry().register(instance("orders", "orders-w1"));
        eastWriter.registry().register(instance("orders", "orders-e1"));
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));
        assertThat(ids(caller)).containsExactly("orders-e1");
        awaitHeldByRemote(caller, "west", "orders");

        eastWriter.registry().deregister("orders", "orders-e1");

        await().atMost(FAILOVER).until(() -> ids(caller).equals(List.of("orders-w1")));
        assertThat(caller.discovery().getInstances("orders", InstanceFilter.UP)).singleElement()
                .extracting(ServiceInstance::region).isEqualTo("west");
    }

    @Test
    void aCallerRoutesBackHomeWithinOneSecondOfAnInstanceReturning() {
        LodestarClient eastWriter = clients.connect(home("east"));
        writer(west, "west").registry().register(instance("orders", "orders-w1"));
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));
        await().atMost(CONVERGENCE).until(() -> ids(caller).equals(List.of("orders-w1")));

        eastWriter.registry().register(instance("orders", "orders-e1"));

        await().atMost(FAILOVER).until(() -> ids(caller).equals(List.of("orders-e1")));
    }

    @Test
    void homeInstancesThatAreAllDownCountAsNoneAndTheNextRegionIsAdded() {
        LodestarClient eastWriter = clients.connect(home("east"));
        writer(west, "west").registry().register(instance("orders", "orders-w1"));
        eastWriter.registry().register(instance("orders", "orders-e1"));
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));
        awaitHeldByRemote(caller, "west", "orders");

        eastWriter.registry().setStatus("orders", "orders-e1", InstanceStatus.DOWN);

        await().atMost(FAILOVER).until(() -> ids(caller).equals(List.of("orders-w1")));
        assertThat(caller.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-e1", "orders-w1");
    }

    @Test
    void withAThresholdTheNextRegionIsAddedWhileHomeHasFewerUpThanIt() {
        LodestarClient eastWriter = clients.connect(home("east"));
        writer(west, "west").registry().register(instance("orders", "orders-w1"));
        eastWriter.registry().register(instance("orders", "orders-e1"));
        LodestarClient caller = clients.connect(home("east").then(remote("west", west))
                .then(options -> options.regionFailoverThreshold(2)));

        await().atMost(CONVERGENCE).until(() -> ids(caller).equals(List.of("orders-e1", "orders-w1")));

        eastWriter.registry().register(instance("orders", "orders-e2"));
        await().atMost(FAILOVER).until(() -> ids(caller).equals(List.of("orders-e1", "orders-e2")));
    }

    @Test
    void withThreeRegionsAnEmptySecondRegionIsPassedOverForTheThird() {
        RedisServer south = start(TestRedis.startStandalone());
        LodestarClient eastWriter = clients.connect(home("east"));
        writer(south, "south").registry().register(instance("orders", "orders-s1"));
        eastWriter.registry().register(instance("orders", "orders-e1"));
        LodestarClient caller = clients.connect(home("east").then(remote("west", west))
                .then(remote("south", south)));
        awaitHeldByRemote(caller, "south", "orders");

        eastWriter.registry().deregister("orders", "orders-e1");

        await().atMost(FAILOVER).until(() -> ids(caller).equals(List.of("orders-s1")));
        assertThat(caller.regions()).containsExactly("east", "west", "south");
    }

    @Test
    void everyInstanceCarriesTheRegionItWasReadFromWhateverItsMetadataSays() {
        writer(west, "west").registry().register(instance("orders", "orders-w1").toBuilder()
                .metadata("region", "east").region("east").build());
        LodestarClient eastWriter = clients.connect(home("east"));
        ServiceInstance registered = eastWriter.registry().register(instance("orders", "orders-e1").toBuilder()
                .region("west").build()).instance();
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));

        assertThat(registered.region()).isEqualTo("east");
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(caller.allRegions().getInstances("orders"))
                .extracting(ServiceInstance::instanceId, ServiceInstance::region)
                .containsExactly(tuple("orders-e1", "east"),
                        tuple("orders-w1", "west")));
        assertThat(caller.discovery("west").getInstances("orders")).singleElement()
                .extracting(ServiceInstance::region).isEqualTo("west");
        assertThat(caller.directDiscovery().getInstances("orders")).singleElement()
                .extracting(ServiceInstance::region).isEqualTo("east");
    }

    @Test
    void killingTheRemoteRegionsRedisFailsNoHomeCallAndMarksOnlyThatRegionStale() {
        writer(west, "west").registry().register(instance("orders", "orders-w1"));
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));
        caller.registry().register(instance("orders", "orders-e1"));
        awaitHeldByRemote(caller, "west", "orders");

        west.kill();

        await().atMost(CONVERGENCE).until(() -> caller.discovery("west").status().stale());
        caller.registry().register(instance("orders", "orders-e2"));
        caller.registry().deregister("orders", "orders-e1");
        caller.registry().deregister("orders", "orders-e2"); // home empty: the stale region answers from memory
        assertThat(ids(caller)).containsExactly("orders-w1");
        assertThat(caller.discovery().getInstances("payments")).isEmpty(); // a first read too
        assertThat(caller.discovery().status().stale()).isFalse();
        ClientHealth health = caller.health();
        assertThat(health.healthy()).isTrue();
        assertThat(health.remoteRegions()).singleElement().satisfies(region -> {
            assertThat(region.name()).isEqualTo("west");
            assertThat(region.discovery().stale()).isTrue();
        });
        assertThat(health.details()).containsKey("remoteRegions");
    }

    @Test
    void theStaleGaugeIsTaggedWithEachRegion() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        LodestarClient caller = start(RedisLodestar.create(LodestarOptions.builder(east.uri())
                .namespace(clients.namespace()).region("east").remoteRegion("west", west.uri()).build(), meters));
        caller.discovery().getInstances("orders");

        west.kill();

        await().atMost(CONVERGENCE).until(() -> stale(meters, "west") == 1);
        assertThat(stale(meters, "east")).isZero();
    }

    private static double stale(SimpleMeterRegistry meters, String region) {
        return meters.get("lodestar.view.stale").tags("region", region, "view", "service").gauge().value();
    }

    @Test
    void aRemoteRegionThatIsDownAtStartDoesNotStopTheClientAndLoadsWhenItComesBack() {
        west.kill();
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));
        assertThat(ids(caller)).isEmpty();

        west.restart();
        writer(west, "west").registry().register(instance("orders", "orders-w1"));

        await().atMost(CONVERGENCE).until(() -> ids(caller).equals(List.of("orders-w1")));
        assertThat(caller.discovery("west").status().stale()).isFalse();
    }

    @Test
    void aRemoteRegionBehindA50MillisecondLinkConvergesAfterItsConnectionsAreKilledAndItRestarts() {
        StallingRelay link = start(StallingRelay.to(west, Duration.ofMillis(50)));
        LodestarClient westWriter = writer(west, "west");
        westWriter.registry().register(ephemeral("orders-w1"));
        LodestarClient caller = clients.connect(home("east").then(options -> options.remoteRegion("west",
                link.uri())));
        awaitHeldByRemote(caller, "west", "orders");

        west.disconnectClients("pubsub");
        westWriter.registry().register(ephemeral("orders-w2")); // while the remote view's subscription is down
        await().atMost(CONVERGENCE).until(() -> ids(caller).equals(List.of("orders-w1", "orders-w2")));

        RedisAdmin.run(west, "SAVE");
        west.kill();
        await().atMost(CONVERGENCE).until(() -> caller.discovery("west").status().stale());
        west.restart();
        await().atMost(CONVERGENCE).until(() -> westWriter.health().nodes().stream()
                .allMatch(ClientHealth.Node::connected));
        westWriter.registry().deregister("orders", "orders-w1");

        await().atMost(CONVERGENCE).until(() -> ids(caller).equals(List.of("orders-w2"))
                && !caller.discovery("west").status().stale());
    }

    @Test
    void aSubscriptionToEveryRegionHearsEachRegionsChangesStampedWithTheirRegion() {
        LodestarClient westWriter = writer(west, "west");
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        caller.allRegions().subscribe("orders", heard::add);

        westWriter.registry().register(instance("orders", "orders-w1"));
        caller.registry().register(instance("orders", "orders-e1"));

        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(heard)
                .filteredOn(InstanceRegistered.class::isInstance).map(InstanceRegistered.class::cast)
                .extracting(event -> event.instance().instanceId(), event -> event.instance().region())
                .containsExactlyInAnyOrder(tuple("orders-w1", "west"), tuple("orders-e1", "east")));
    }

    @Test
    void preloadedServicesAreHeldInEveryRegionBeforeTheFirstRead() {
        writer(west, "west").registry().register(instance("orders", "orders-w1"));

        LodestarClient caller = clients.connect(home("east").then(remote("west", west))
                .then(options -> options.preloadServices(List.of("orders"))));

        await().atMost(CONVERGENCE).until(() -> caller.discovery("west").heldSnapshots().containsKey("orders"));
    }

    @Test
    void anUnknownRegionIsRefusedByName() {
        LodestarClient caller = clients.connect(home("east").then(remote("west", west)));

        assertThatThrownBy(() -> caller.discovery("north")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("region must be one of [east, west], but was north");
    }

    private static ServiceInstance ephemeral(String id) {
        return instance("orders", id).toBuilder().ttl(Duration.ofSeconds(30)).build();
    }

    /** The ids of the instances the caller would send traffic to. */
    private static List<String> ids(LodestarClient caller) {
        return caller.discovery().getInstances("orders", InstanceFilter.UP).stream()
                .map(ServiceInstance::instanceId).toList();
    }

    /** A remote region's view loads a service in the background after its first read: wait for it. */
    private static void awaitHeldByRemote(LodestarClient caller, String region, String service) {
        await().atMost(CONVERGENCE).until(() -> {
            caller.discovery().getInstances(service);
            return caller.discovery(region).heldSnapshots().containsKey(service);
        });
    }

    private LodestarClient writer(RedisServer redis, String region) {
        return clients.connect(redis.uri(), home(region));
    }

    private static Customizer home(String region) {
        return options -> options.region(region);
    }

    private static Customizer remote(String region, RedisServer redis) {
        return options -> options.remoteRegion(region, redis.uri());
    }

    private <T extends AutoCloseable> T start(T closeable) {
        open.add(closeable);
        return closeable;
    }

    /** Options of one test client, composable. */
    private interface Customizer extends UnaryOperator<LodestarOptions.Builder> {
        default Customizer then(UnaryOperator<LodestarOptions.Builder> next) {
            return options -> next.apply(apply(options));
        }
    }
}
