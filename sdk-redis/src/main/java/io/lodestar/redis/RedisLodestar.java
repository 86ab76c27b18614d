package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Validation;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Creates Lodestar clients backed by Redis. {@code io.lodestar.core.Lodestar.connect(...)} finds this module by
 * itself; call this class directly when you prefer an explicit dependency.
 *
 * <pre>{@code
 * try (LodestarClient lodestar = RedisLodestar.create(LodestarOptions.builder("redis://localhost:6379")
 *         .namespace("prod").build())) {
 *     lodestar.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.7").port(8080).build());
 *     List<ServiceInstance> orders = lodestar.discovery().getInstances("orders");
 * }
 * }</pre>
 */
public final class RedisLodestar {
    private RedisLodestar() {
    }

    /**
     * Connects to Redis (standalone, Sentinel or Cluster, as the URI says) and starts the client's background work
     * (renewals, expiry sweep, view reconcile).
     *
     * @param options the options
     * @return a connected client; close it to deregister and release everything
     * @throws io.lodestar.core.InvalidArgumentException when the URI cannot be parsed
     * @throws io.lodestar.core.UnavailableException     when Redis cannot be reached (unless a config snapshot
     *                                                   directory is set: then the client starts offline, see
     *                                                   {@link LodestarOptions#configSnapshotDirectory()})
     */
    public static LodestarClient create(LodestarOptions options) {
        return new RedisLodestarClient(Validation.requireNonNull("options", options), null);
    }

    /**
     * Like {@link #create(LodestarOptions)}, and publishes metrics to a Micrometer registry (Micrometer is an
     * optional dependency: only this method needs it). Meters, all tagged with {@code namespace} and {@code view}
     * ({@code service}, {@code index}, {@code config}...):
     * {@code lodestar.view.reads}, {@code lodestar.view.events.applied}, {@code lodestar.view.resyncs},
     * {@code lodestar.view.gaps}, {@code lodestar.view.events.rejected} (counters),
     * {@code lodestar.sweep.failures} (counter, tagged with {@code namespace} only), {@code lodestar.view.topics} (entries held),
     * {@code lodestar.view.stale} (1 while stale), {@code lodestar.view.sync.age} (time since the view last heard
     * from Redis); plus Lettuce's command latencies ({@code lettuce.command.completion},
     * {@code lettuce.command.firstresponse}).
     *
     * @param options       the options
     * @param meterRegistry where to publish
     * @return a connected client
     */
    public static LodestarClient create(LodestarOptions options, MeterRegistry meterRegistry) {
        Validation.requireNonNull("options", options);
        Validation.requireNonNull("meterRegistry", meterRegistry);
        RedisLodestarClient client = new RedisLodestarClient(options, Metrics.lettuceResources(meterRegistry));
        try {
            Metrics.bind(client, meterRegistry);
        } catch (RuntimeException e) { // a failed create() leaves no connection or thread behind
            client.close();
            throw e;
        }
        return client;
    }
}
