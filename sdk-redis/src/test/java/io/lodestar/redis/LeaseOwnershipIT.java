package io.lodestar.redis;

import io.lodestar.core.LeaseListener;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lease renews only the registration it created: another client's later registration of the same id is that
 * client's to keep alive, and a register racing a deregister on one client leaves a lease exactly when the
 * registration won.
 */
class LeaseOwnershipIT extends NamespaceTest {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration BOUND = Duration.ofSeconds(10);

    @Override
    String redisUri() {
        return TestRedis.standalone().uri();
    }

    @Test
    void aLeaseDoesNotKeepAnotherClientsRegistrationOfTheSameIdAlive() {
        // given A's registration of orders-1 at h1, taken over by B's at h2, and B crashed (nothing deregistered)
        LodestarClient a = clients.connect();
        List<String> heard = new CopyOnWriteArrayList<>();
        a.registry().addLeaseListener((instance, cause) -> heard.add(instance.instanceId() + " " + cause));
        a.registry().register(at("h1"));
        LodestarClient b = clients.connect(options -> options.deregisterOnClose(false));
        b.registry().register(at("h2"));
        b.close();

        // when B's registration's TTL runs out, then it expires: A's lease does not renew it
        LodestarClient reader = clients.connect();
        await().atMost(BOUND).untilAsserted(() ->
                assertThat(reader.directDiscovery().getInstances("orders")).isEmpty());

        // and A stopped its lease, reports it and told its listener once
        assertThat(a.health().registrations().held()).isZero();
        assertThat(a.health().registrations().takenOver()).isEqualTo(1);
        assertThat(heard).containsExactly("orders-1 " + LeaseListener.Cause.TAKEN_OVER);
    }

    @Test
    void anExplicitRenewalByAnotherClientStillRenewsWhateverIsRegistered() {
        // given B's registration, whose owner stopped renewing it (crashed)
        LodestarClient b = clients.connect(options -> options.deregisterOnClose(false));
        b.registry().register(at("h2"));
        b.close();
        LodestarClient operator = clients.connect();

        // when another client renews it explicitly, again and again over three TTLs
        await().during(TTL.multipliedBy(3)).atMost(BOUND).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            operator.registry().renew("orders", "orders-1");
            // then it stays registered
            assertThat(operator.directDiscovery().getInstances("orders")).extracting(ServiceInstance::host)
                    .containsExactly("h2");
        });
    }

    @Test
    void aRegisterRacingADeregisterOnOneClientKeepsTheLeaseExactlyWhenTheRegistrationWon() throws Exception {
        // given one client, and 400 instances each registered and deregistered at once from two threads, the
        // deregister started 0 to 99 µs after the register (the window that matters is that short)
        LodestarClient client = clients.connect();
        int races = 400;
        List<Boolean> deregistered = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < races; i++) {
                long delayNanos = TimeUnit.MICROSECONDS.toNanos(i % 100);
                ServiceInstance instance = instance("orders", "orders-" + i).toBuilder().ttl(TTL).build();
                CyclicBarrier start = new CyclicBarrier(2);
                CompletableFuture<Void> register = CompletableFuture.runAsync(() -> {
                    meet(start);
                    client.registry().register(instance);
                }, threads);
                CompletableFuture<Boolean> deregister = CompletableFuture.supplyAsync(() -> {
                    meet(start);
                    spin(delayNanos);
                    return client.registry().deregister("orders", instance.instanceId());
                }, threads);
                register.get(10, TimeUnit.SECONDS);
                deregistered.add(deregister.get(10, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
        }

        // when three TTLs pass (a registration without its lease expires in two)
        long won = deregistered.stream().filter(removed -> !removed).count();
        LodestarClient reader = clients.connect();
        await().pollDelay(TTL.multipliedBy(3)).atMost(BOUND).untilAsserted(() -> {
            // then an instance is registered exactly when its deregister removed nothing (the register came last)
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < races; i++) {
                if (!deregistered.get(i)) {
                    expected.add("orders-" + i);
                }
            }
            assertThat(reader.directDiscovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactlyInAnyOrderElementsOf(expected);
        });
        assertThat(client.health().registrations().held()).isEqualTo((int) won);
    }

    private static ServiceInstance at(String host) {
        return instance("orders", "orders-1").toBuilder().host(host).ttl(TTL).build();
    }

    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    private static void meet(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
