package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ServiceInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/** Test helper: clients of one fresh namespace (so tests never need FLUSHALL), closed together. */
final class Clients implements AutoCloseable {
    /**
     * Clients never reconcile unless a test asks for it: every recovery path (gap, reconnect, resync) must be
     * proven on its own, not rescued by the periodic safety net.
     */
    static final Duration RECONCILE_OFF = Duration.ofDays(1);

    private final String uri;
    private final String namespace;
    private final List<LodestarClient> open = new ArrayList<>();
    private final UnaryOperator<LodestarOptions.Builder> defaults;

    Clients(String uri) {
        this(uri, options -> options);
    }

    /** With options every client of this set gets (e.g. TLS trust). */
    Clients(String uri, UnaryOperator<LodestarOptions.Builder> defaults) {
        this(uri, defaults, "t-" + UUID.randomUUID().toString().substring(0, 8));
    }

    private Clients(String uri, UnaryOperator<LodestarOptions.Builder> defaults, String namespace) {
        this.uri = uri;
        this.defaults = defaults;
        this.namespace = namespace;
    }

    /** Clients of this namespace at another URI (e.g. as another ACL user). */
    Clients sameNamespace(String otherUri) {
        return new Clients(otherUri, defaults, namespace);
    }

    String namespace() {
        return namespace;
    }

    LodestarClient connect() {
        return connect(options -> options);
    }

    LodestarClient connect(UnaryOperator<LodestarOptions.Builder> customizer) {
        return connect(uri, customizer);
    }

    /** A client of this namespace through another URI (e.g. as another ACL user). */
    LodestarClient connect(String otherUri, UnaryOperator<LodestarOptions.Builder> customizer) {
        LodestarOptions options = customizer.apply(defaults.apply(LodestarOptions.builder(otherUri).namespace(namespace))
                .commandTimeout(Duration.ofSeconds(2))
                .sweepInterval(Duration.ofMillis(500))
                .reconcileInterval(RECONCILE_OFF)).build();
        LodestarClient client = RedisLodestar.create(options);
        open.add(client);
        return client;
    }

    static ServiceInstance instance(String service, String id) {
        return ServiceInstance.builder(service, id).host("10.0.0.1").port(8080).build();
    }

    /** An instance without a lease: it stays until deregistered. */
    static ServiceInstance persistent(String service, String id) {
        return instance(service, id).toBuilder().ttl(Duration.ZERO).build();
    }

    @Override
    public void close() {
        for (LodestarClient client : open) {
            try {
                client.close();
            } catch (RuntimeException ignored) {
                // a test may have killed Redis; closing must not hide the test's own outcome
            }
        }
    }
}
