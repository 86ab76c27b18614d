package io.lodestar.examples;

import io.lodestar.core.ClientHealth;
import io.lodestar.core.ConfigEventAdapter;
import io.lodestar.core.ConfigListener;
import io.lodestar.core.Initial;
import io.lodestar.core.InstanceFilter;
import io.lodestar.core.Lodestar;
import io.lodestar.core.ConfigService;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;
import io.lodestar.redis.RedisLodestar;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The README's quick start, kept here so that it always compiles. */
final class QuickStart {
    private QuickStart() {
    }

    static URI quickStart(String redisUri) {
        // --- README: quick start ---
        try (LodestarClient lodestar = Lodestar.connect(redisUri)) {           // e.g. redis://localhost:6379
            lodestar.registry().register(ServiceInstance.builder("orders", "orders-1")
                    .host("10.0.0.7").port(8080).metadata("zone", "eu-1").build()); // renewed until close()

            LoadBalancer balancer = LoadBalancers.weightedRandom()
                    .selector(Selectors.zonePreference("eu-1")).build();        // my zone first, else any
            ServiceInstance target = balancer.choose(lodestar.discovery().getInstances("orders")); // no I/O
            return target.uri();                                                 // http://10.0.0.7:8080
        }
        // --- end ---
    }

    static String configQuickStart(String redisUri, ConfigListener listener) {
        try (LodestarClient lodestar = Lodestar.connect(redisUri)) {
            // --- README: configuration ---
            ConfigService config = lodestar.config();
            config.subscribe("orders/limits", listener);                               // once per version, in order
            ConfigEntry v1 = config.set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
            config.compareAndSet("orders/limits", "max-requests: 500", ConfigFormat.YAML, v1.version());
            config.rollback("orders/limits", v1.version());                           // as a new version
            String current = config.get("orders/limits").orElseThrow().content();     // no I/O
            // --- end ---
            return current;
        }
    }

    /** What a server that must never block a request thread does; returns what it saw, for the test. */
    static List<String> embeddingQuickStart(String redisUri) {
        List<String> seen = new CopyOnWriteArrayList<>();
        // --- README: embedding ---
        LodestarOptions options = LodestarOptions.builder(redisUri)
                .preloadServices(List.of("orders"))                  // held before the first request
                .startupMode(StartupMode.FAIL_FAST).build();          // or OFFLINE: start, connect in background
        try (LodestarClient lodestar = RedisLodestar.builder(options).build()) { // .clientResources(shared) ...
            lodestar.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080)
                    .build());
            lodestar.discovery().async().getInstances("billing", InstanceFilter.UP)   // never blocks the caller;
                    .thenAccept(up -> seen.add("billing: " + up.size()))              // completes off the event loop
                    .toCompletableFuture().join();                                    // (joined here for the demo)
            List<ServiceInstance> up = lodestar.discovery().getInstances("orders", InstanceFilter.UP); // no I/O
            lodestar.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
            lodestar.config().subscribe("orders/limits", new ConfigEventAdapter() {   // current value, then changes
                @Override
                public void onChanged(ConfigChanged event) {
                    seen.add("config: " + event.entry().content());
                }
            }, Initial.DELIVER);
            ClientHealth health = lodestar.health();          // nodes, view staleness, leases: for a health probe
            seen.add("orders up: " + up.size() + ", healthy: " + health.healthy());
            lodestar.drain();                                 // shutdown, phase 1: OUT_OF_SERVICE, requests finish
            lodestar.deregisterAll();                         // phase 2: gone from every view; then close()
        }
        // --- end ---
        return seen;
    }
}
