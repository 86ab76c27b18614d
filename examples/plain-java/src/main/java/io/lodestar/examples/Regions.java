package io.lodestar.examples;

import io.lodestar.core.InstanceFilter;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Two regions, each with its own Redis, and no sync between them: {@code orders} runs in both, and a caller at home
 * in eu-west fails over to us-east when eu-west has no UP instance left, and back when one returns. Run with
 * {@code ./mvnw -q -DskipTests -pl examples/plain-java -am verify exec:java -Dexec.mainClass=io.lodestar.examples.Regions}
 * (it starts two local Redis servers from the test kit).
 */
public final class Regions {
    private Regions() {
    }

    public static void main(String[] args) {
        try (RedisServer euWest = TestRedis.startStandalone(); RedisServer usEast = TestRedis.startStandalone()) {
            failover(euWest.uri(), usEast.uri(), System.out::println);
        }
    }

    /** Tells {@code out} which instances the caller would call at each step. */
    static void failover(String euWestUri, String usEastUri, Consumer<String> out) {
        try (LodestarClient inEu = RedisLodestar.create(LodestarOptions.builder(euWestUri).region("eu-west").build());
             LodestarClient inUs = RedisLodestar.create(LodestarOptions.builder(usEastUri).region("us-east").build());
             LodestarClient caller = RedisLodestar.create(LodestarOptions.builder(euWestUri)
                     .region("eu-west")                                   // home: registers and writes here
                     .remoteRegion("us-east", usEastUri)                  // read only, with its own credentials
                     .preloadServices(List.of("orders"))                  // held in every region from the start
                     .build())) {
            inUs.registry().register(orders("orders-us-1"));
            inEu.registry().register(orders("orders-eu-1"));
            out.accept("both regions up: " + await(caller, "orders-eu-1"));

            inEu.registry().deregister("orders", "orders-eu-1");            // home has none left
            out.accept("eu-west empty:   " + await(caller, "orders-us-1"));

            inEu.registry().register(orders("orders-eu-2"));                // back home
            out.accept("eu-west back:    " + await(caller, "orders-eu-2"));
        }
    }

    private static ServiceInstance orders(String id) {
        return ServiceInstance.builder("orders", id).host("127.0.0.1").port(8080).build();
    }

    /** What the caller would call, once it is the one instance expected (bounded: 5 s). */
    private static String await(LodestarClient caller, String expected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<ServiceInstance> up;
        do {
            up = caller.discovery().getInstances("orders", InstanceFilter.UP);
            if (up.size() == 1 && up.get(0).instanceId().equals(expected)) {
                break;
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos()); // a demo's poll; an application just reads
        } while (System.nanoTime() < deadline);
        return up.stream().map(i -> i.instanceId() + " (" + i.region() + ")").toList().toString();
    }
}
