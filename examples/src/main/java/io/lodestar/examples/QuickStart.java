package io.lodestar.examples;

import io.lodestar.core.Lodestar;
import io.lodestar.core.ConfigListener;
import io.lodestar.core.ConfigService;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.loadbalancer.LoadBalancer;
import io.lodestar.loadbalancer.LoadBalancers;
import io.lodestar.loadbalancer.Selectors;

import java.net.URI;

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
}
