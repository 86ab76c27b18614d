package io.lodestar.micronaut;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.TestRedis;
import io.micronaut.context.ApplicationContext;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Application contexts on the shared test Redis, each in a namespace of its own so tests never see each other's
 * keys, with the periodic reconcile effectively off (no test may pass thanks to it).
 */
final class Contexts {
    private Contexts() {
    }

    static String namespace() {
        return "mn-" + UUID.randomUUID();
    }

    /** The properties every context needs, plus {@code extra} (which wins). */
    static Map<String, Object> properties(String namespace, Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("lodestar.redis-uri", TestRedis.standalone().uri());
        properties.put("lodestar.namespace", namespace);
        properties.put("lodestar.reconcile-interval", "12h");
        properties.putAll(extra);
        return properties;
    }

    /** A plain client of the same namespace, as another application (or an operator) would have. */
    static LodestarClient client(String namespace) {
        return RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri()).namespace(namespace)
                .reconcileInterval(Duration.ofHours(12)).build());
    }

    static ApplicationContext run(String namespace, Map<String, Object> extra) {
        return ApplicationContext.run(properties(namespace, extra));
    }
}
