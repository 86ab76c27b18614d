package io.lodestar.examples;

import io.lodestar.core.Lodestar;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.event.InstanceExpired;
import io.lodestar.core.event.InstanceRegistered;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.EmptyPolicy;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The main demo: two "applications" share one Redis. One registers instances of {@code orders}; the other
 * discovers them through its local view, balances requests over them (weighted, preferring its zone), watches an
 * instance expire, and follows live configuration (set, update, rollback).
 *
 * <p>Uses {@code LODESTAR_REDIS_URI} when set; otherwise starts a private Redis (from PATH, or the binary shipped
 * in the embedded-redis artifact) that is stopped at the end. Run it with:
 * {@code ./mvnw -q -Pdemo -DskipTests -pl examples -am verify}
 */
public final class Demo {
    private Demo() {
    }

    /**
     * @param args unused
     * @throws InterruptedException if interrupted while waiting for events
     */
    public static void main(String[] args) throws InterruptedException {
        String configured = System.getenv("LODESTAR_REDIS_URI");
        RedisServer started = configured == null ? TestRedis.startStandalone() : null;
        String uri = configured != null ? configured : started.uri();
        System.out.println("Redis: " + (started == null ? LodestarOptions.redact(uri)
                : uri + " (started for this demo: " + TestRedis.describeSource() + ")"));
        try {
            run(uri);
        } finally {
            if (started != null) {
                started.close();
            }
        }
    }

    private static void run(String uri) throws InterruptedException {
        LodestarOptions options = LodestarOptions.builder(uri).namespace("demo")
                .sweepInterval(Duration.ofSeconds(1)).build();
        try (LodestarClient ordersApp = Lodestar.connect(options);
             LodestarClient gateway = Lodestar.connect(options)) {

            CountDownLatch expired = new CountDownLatch(1);
            gateway.discovery().subscribe("orders", event -> {
                if (event instanceof InstanceRegistered registered) {
                    System.out.printf("  [gateway] event: %s registered (revision %d)%n",
                            registered.instance().instanceId(), registered.revision());
                } else if (event instanceof InstanceExpired gone) {
                    System.out.printf("  [gateway] event: %s expired (revision %d)%n", gone.instanceId(),
                            gone.revision());
                    expired.countDown();
                }
            });

            System.out.println("\n1. The orders app registers three instances (weights 300/100/100, two zones)");
            ordersApp.registry().register(instance("orders-a", "eu-1", 300));
            ordersApp.registry().register(instance("orders-b", "eu-1", 100));
            ordersApp.registry().register(instance("orders-c", "us-1", 100));

            System.out.println("\n2. The gateway discovers them from its local view (no Redis round trip per read)");
            gateway.discovery().getInstances("orders").forEach(i ->
                    System.out.printf("  %s %s weight=%d zone=%s%n", i.instanceId(), i.uri(), i.weight(),
                            i.metadata("zone")));
            System.out.println("  services: " + gateway.discovery().getServices());

            System.out.println("\n3. 10,000 requests through a weighted balancer that prefers zone eu-1");
            LoadBalancer balancer = LoadBalancers.weightedRandom()
                    .selector(Selectors.zonePreference("eu-1"))
                    .onEmpty(EmptyPolicy.FAIL)
                    .build();
            Map<String, Integer> hits = new TreeMap<>();
            for (int i = 0; i < 10_000; i++) {
                ServiceInstance target = balancer.choose(gateway.discovery().getInstances("orders"));
                hits.merge(target.instanceId(), 1, Integer::sum);
            }
            System.out.println("  " + hits + "   (expect about 3:1, and none in us-1)");

            System.out.println("\n4. An instance registered with a 2 s TTL by a process that then dies");
            try (LodestarClient crashing = Lodestar.connect(LodestarOptions.builder(uri).namespace("demo")
                    .deregisterOnClose(false).build())) {
                crashing.registry().register(ServiceInstance.builder("orders", "orders-tmp").host("10.0.0.9")
                        .port(8080).ttl(Duration.ofSeconds(2)).metadata("zone", "eu-1").build());
            }
            boolean gone = expired.await(10, TimeUnit.SECONDS);
            System.out.println("  gone from the gateway's view: " + gone + " -> "
                    + gateway.discovery().getInstances("orders").size() + " instances left");

            System.out.println("\n5. Live configuration: the gateway listens, the orders app writes");
            CountDownLatch threeVersions = new CountDownLatch(3);
            gateway.config().subscribe("orders/limits", event -> {
                System.out.printf("  [gateway] config event: %s version %d%n", event.getClass().getSimpleName(),
                        event.version());
                threeVersions.countDown();
            });
            ordersApp.config().set("orders/limits", "max-requests: 100\n", ConfigFormat.YAML);
            ordersApp.config().set("orders/limits", "max-requests: 500\n", ConfigFormat.YAML);
            ordersApp.config().rollback("orders/limits", 1);
            threeVersions.await(10, TimeUnit.SECONDS);
            ConfigEntry limits = gateway.config().get("orders/limits").orElseThrow();
            System.out.printf("  current: version %d, %s", limits.version(), limits.content());
            System.out.println("  history: " + ordersApp.config().history("orders/limits").stream()
                    .map(entry -> "v" + entry.version()).toList());
            ordersApp.config().remove("orders/limits");

            System.out.println("\n6. The view's health: " + gateway.discovery().status());
        }
        System.out.println("\nClosed: the orders app deregistered its instances on close.");
    }

    private static ServiceInstance instance(String id, String zone, int weight) {
        return ServiceInstance.builder("orders", id).host("10.0.0." + (id.charAt(id.length() - 1) - 'a' + 1))
                .port(8080).weight(weight).metadata("zone", zone).build();
    }
}
