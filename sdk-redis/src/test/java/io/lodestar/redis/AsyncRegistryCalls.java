package io.lodestar.redis;

import io.lodestar.core.AsyncServiceRegistry;
import io.lodestar.core.model.InstanceStatus;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Test helper: one call of every {@link AsyncServiceRegistry} method, by name, on instances orders-1..3; except
 * {@code registerWhenAvailable}, which retries while Redis is unreachable instead of failing (see ClientApiIT).
 */
final class AsyncRegistryCalls {
    private AsyncRegistryCalls() {
    }

    static Map<String, Function<AsyncServiceRegistry, CompletionStage<?>>> every() {
        Map<String, Function<AsyncServiceRegistry, CompletionStage<?>>> calls = new LinkedHashMap<>();
        calls.put("register", registry -> registry.register(Clients.instance("orders", "orders-9")));
        calls.put("renew", registry -> registry.renew("orders", "orders-1"));
        calls.put("setMetadata", registry -> registry.setMetadata("orders", "orders-1", Map.of("zone", "eu-1")));
        calls.put("updateMetadata", registry -> registry.updateMetadata("orders", "orders-1",
                Map.of("canary", "true"), Set.of("zone")));
        calls.put("setStatus", registry -> registry.setStatus("orders", "orders-1", InstanceStatus.OUT_OF_SERVICE));
        calls.put("setWeight", registry -> registry.setWeight("orders", "orders-1", 7));
        calls.put("deregister", registry -> registry.deregister("orders", "orders-2"));
        calls.put("evict", registry -> registry.evict("orders", "orders-3"));
        return calls;
    }
}
