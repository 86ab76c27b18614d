package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis outage expires nothing whose owner is alive, and still expires what a crashed owner left. Redis keeps its
 * data across the outage (SAVE before the kill, loaded again by the restart), so deadlines pass while it is away.
 * Nothing in the grace may depend on how long the outage was: the 60 s outage is five times the grace (reconnect
 * allowance + TTL), the 20 s one already longer than it.
 * Views never reconcile by themselves here, so only the outage rules can keep them right.
 * Both outages run at the same time (see junit-platform.properties): each has its own Redis, its own clients and its
 * own ACL user, and the test is almost all waiting, so running them together changes nothing either of them sees.
 */
class OutageIT extends PrivateRedisTest {
    private static final Duration TTL = Duration.ofSeconds(2);
    /**
     * The documented bound for a crashed owner's instance, from the last client's return (here the late owner's:
     * each client that comes back moves the outage marker): the marker (that client's next election, ≤ 1.1 sweep
     * intervals) + the reconnect allowance (10 s) + TTL + the sweep interval (0.5 s, ±10%), one more if the sweep
     * lock's holder died (13.7 s), rounded up for a loaded machine.
     */
    private static final Duration CRASHED_EXPIRES_WITHIN = Duration.ofSeconds(15);
    private static final String PASSWORD = "late-Pa55";
    private static final UnaryOperator<LodestarOptions.Builder> NO_RECONCILE = options -> options
            .reconcileInterval(Duration.ofHours(1));
    private static final Set<String> LIVE = Set.of("orders-live", "orders-late");

    @ParameterizedTest(name = "{0} s outage")
    @Execution(ExecutionMode.CONCURRENT)
    @ValueSource(ints = {20, 60})
    void anOutageDropsNoLiveOwnersInstanceFromAnyViewWhileACrashedOwnersStillExpires(int outageSeconds) {
        // "late" is an owner that is back after the others: it cannot run scripts for a while after Redis returns,
        // so sweeps run before it can renew (ACL users are not saved: the test creates it again on restart)
        String rules = String.join(" ", LeastPrivilege.ACL_RULES);
        RedisAdmin.run(redis, "ACL SETUSER late on >" + PASSWORD + " " + rules);
        LodestarClient late = clients.connect("redis://late:" + PASSWORD + "@" + redis.host() + ":" + redis.port(),
                NO_RECONCILE);
        LodestarClient live = clients.connect(NO_RECONCILE);
        LodestarClient crashing = clients.connect(options -> NO_RECONCILE.apply(options).deregisterOnClose(false));
        LodestarClient reader = clients.connect(NO_RECONCILE);
        late.registry().register(ephemeral("orders-late"));
        live.registry().register(ephemeral("orders-live"));
        crashing.registry().register(ephemeral("orders-crashed"));
        List<List<ServiceEvent>> heard = new ArrayList<>();
        for (LodestarClient client : List.of(late, live, reader)) {
            List<ServiceEvent> events = new CopyOnWriteArrayList<>();
            client.discovery().subscribe("orders", events::add);
            heard.add(events);
        }
        assertThat(reader.discovery().getInstances("orders")).hasSize(3);

        crashing.close(); // stops renewing: its deadline passes during the outage
        RedisAdmin.run(redis, "SAVE");
        redis.kill();
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().status().stale());
        Duration outage = Duration.ofSeconds(outageSeconds);
        await().during(outage).atMost(outage.plusSeconds(2)).until(() ->
                reader.discovery().getInstances("orders").size() == 3); // views serve their last state meanwhile
        redis.restart();
        RedisAdmin.run(redis, "ACL SETUSER late on >" + PASSWORD + " " + rules + " -evalsha -eval");

        await().atMost(Duration.ofSeconds(30)).until(() -> !reader.discovery().status().stale()
                && !live.discovery().status().stale());
        // everyone else is back and sweeping; the late owner's instance is overdue and cannot be renewed yet
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() ->
                ids(reader).containsAll(LIVE));
        RedisAdmin.run(redis, "ACL SETUSER late +evalsha +eval");

        await().atMost(CRASHED_EXPIRES_WITHIN).until(() -> ids(reader).equals(LIVE));
        await().atMost(Duration.ofSeconds(5)).until(() -> ids(late).equals(LIVE) && ids(live).equals(LIVE));
        assertThat(ids(reader.directDiscovery().getInstances("orders"))).isEqualTo(LIVE);
        for (List<ServiceEvent> events : heard) {
            assertThat(events).noneMatch(OutageIT::dropsALiveInstance);
        }
        assertThat(heard.get(2)).anySatisfy(event -> assertThat(event).isInstanceOfSatisfying(InstanceExpired.class,
                expired -> assertThat(expired.instanceId()).isEqualTo("orders-crashed")));
    }

    private static boolean dropsALiveInstance(ServiceEvent event) {
        if (event instanceof InstanceExpired expired) {
            return LIVE.contains(expired.instanceId());
        }
        if (event instanceof InstanceDeregistered deregistered) {
            return LIVE.contains(deregistered.instanceId());
        }
        return event instanceof ServiceResynced resynced
                && !ids(resynced.snapshot().instances()).containsAll(LIVE);
    }

    private static ServiceInstance ephemeral(String id) {
        return ServiceInstance.builder("orders", id).host("h").port(1).ttl(TTL).build();
    }

    private static Set<String> ids(LodestarClient client) {
        return ids(client.discovery().getInstances("orders"));
    }

    private static Set<String> ids(List<ServiceInstance> instances) {
        return Set.copyOf(instances.stream().map(ServiceInstance::instanceId).toList());
    }
}
