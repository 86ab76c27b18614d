package io.lodestar.redis;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.Violation;
import io.lodestar.core.internal.Validation;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

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
     * @throws io.lodestar.core.UnavailableException     when Redis cannot be reached (unless the start-up mode is
     *                                                   {@link io.lodestar.core.StartupMode#OFFLINE})
     * @throws io.lodestar.core.AccessDeniedException    when Redis refuses the URI's credentials
     */
    public static LodestarClient create(LodestarOptions options) {
        return builder(options).build();
    }

    /**
     * Like {@link #create(LodestarOptions)}, and publishes metrics to a Micrometer registry (Micrometer is an
     * optional dependency: only this method needs it). Meters, all tagged with {@code namespace} and {@code view}
     * ({@code service}, {@code index}, {@code config}...):
     * {@code lodestar.view.reads} (counted from the moment a registry is bound: a client without one does not count
     * its reads; a {@code MeterFilter} of that registry that denies this meter turns the per-read count off),
     * {@code lodestar.view.events.applied}, {@code lodestar.view.resyncs},
     * {@code lodestar.view.gaps}, {@code lodestar.view.events.rejected}, {@code lodestar.view.overflows},
     * {@code lodestar.view.dropped} (entries dropped for {@code viewTopicLimit}) (counters),
     * {@code lodestar.sweep.failures}, {@code lodestar.sweep.rounds}, {@code lodestar.sweep.services} (counters,
     * tagged with {@code namespace} only), {@code lodestar.view.topics} (entries held),
     * {@code lodestar.view.stale} (1 while stale), {@code lodestar.view.sync.age} (time since the view last heard
     * from Redis); plus Lettuce's command latencies ({@code lettuce.command.completion},
     * {@code lettuce.command.firstresponse}).
     *
     * @param options       the options
     * @param meterRegistry where to publish
     * @return a connected client
     */
    public static LodestarClient create(LodestarOptions options, MeterRegistry meterRegistry) {
        Validation.requireNonNull("meterRegistry", meterRegistry);
        return builder(options).meterRegistry(meterRegistry).build();
    }

    /**
     * Publishes the metrics of a client created without a registry, for a client that exists before the registry
     * does (the Spring starter's {@code spring.config.import} client): the meters of
     * {@link #create(LodestarOptions, MeterRegistry)} except Lettuce's command latencies, which only a registry given
     * at creation records. Binding the same client to the same registry again changes nothing.
     *
     * @param client        a client this class created
     * @param meterRegistry where to publish
     * @throws io.lodestar.core.InvalidArgumentException when the client is not one this class created
     */
    public static void bindMetrics(LodestarClient client, MeterRegistry meterRegistry) {
        Validation.requireNonNull("meterRegistry", meterRegistry);
        if (!(client instanceof RedisLodestarClient redisClient)) {
            throw new InvalidArgumentException(new Violation("client",
                    String.valueOf(client), "a client created by RedisLodestar"));
        }
        Metrics.bind(redisClient, meterRegistry);
    }

    /**
     * For an application that shares resources with the client (an application server, a Spring or Micronaut
     * context): Lettuce resources, a scheduler, a thread factory, a meter registry. The client closes only what it
     * created itself, never what it was given (Lettuce's rule for {@code ClientResources}).
     *
     * @param options the options
     * @return a builder
     */
    public static Builder builder(LodestarOptions options) {
        return new Builder(Validation.requireNonNull("options", options));
    }

    /** Builds a Redis-backed client with shared resources; every one is optional. */
    public static final class Builder {
        private final LodestarOptions options;
        private ClientResources clientResources;
        private ScheduledExecutorService scheduler;
        private Executor executor;
        private ThreadFactory threadFactory;
        private MeterRegistry meterRegistry;

        private Builder(LodestarOptions options) {
            this.options = options;
        }

        /**
         * Lettuce resources (event loops, timers) to share with other Redis clients of the application. They are
         * used as they are (including their reconnect delay: Lodestar's own bound it to 500 ms with jitter) and
         * never shut down by the client.
         *
         * @param clientResources the resources
         * @return this builder
         */
        public Builder clientResources(ClientResources clientResources) {
            this.clientResources = Validation.requireNonNull("clientResources", clientResources);
            return this;
        }

        /**
         * A scheduler to time the client's background work on (renewals, sweeps, reconciles). Lodestar only times
         * work on it, never blocks it; it is never shut down by the client.
         *
         * @param scheduler the scheduler
         * @return this builder
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = Validation.requireNonNull("scheduler", scheduler);
            return this;
        }

        /**
         * An executor to run the client's view and listeners on, instead of a view thread and listener threads of
         * its own: clients built with the same one (and the same {@link #clientResources} and {@link #scheduler})
         * start no thread at all, however many there are in the JVM. Each client's view still runs one task at a
         * time, in order, and each listener gets its events in order, one at a time. Lodestar's own tasks never
         * block; listeners may, so the executor must have threads to spare for them or every client sharing it
         * waits: a cached pool, or virtual threads on Java 21+, not a small fixed pool. It is never shut down by
         * the client.
         *
         * @param executor the executor
         * @return this builder
         */
        public Builder executor(Executor executor) {
            this.executor = Validation.requireNonNull("executor", executor);
            return this;
        }

        /**
         * Makes every thread the client starts (without a shared {@link #executor}, the view thread and listener
         * threads; without a shared {@link #scheduler}, the scheduler thread), e.g. to name them or to run them in a
         * context of the application's.
         *
         * @param threadFactory the factory
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Validation.requireNonNull("threadFactory", threadFactory);
            return this;
        }

        /**
         * Publishes the client's metrics there (see {@link RedisLodestar#create(LodestarOptions, MeterRegistry)});
         * without shared Lettuce resources, also Lettuce's command latencies.
         *
         * @param meterRegistry the registry
         * @return this builder
         */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Validation.requireNonNull("meterRegistry", meterRegistry);
            return this;
        }

        /**
         * Connects (see {@link RedisLodestar#create(LodestarOptions)} for the failures).
         *
         * @return a connected client; close it to deregister and release what it created
         */
        public LodestarClient build() {
            boolean ownsResources = clientResources == null;
            ClientResources resources = clientResources;
            if (ownsResources) {
                ClientResources.Builder own = ClientSettings.defaultResources();
                resources = meterRegistry == null ? own.build() : Metrics.withLatencies(own, meterRegistry).build();
            }
            RedisLodestarClient client = new RedisLodestarClient(options, resources, ownsResources, scheduler,
                    executor, threadFactory);
            if (meterRegistry != null) {
                try {
                    Metrics.bind(client, meterRegistry);
                } catch (RuntimeException e) { // a failed build() leaves no connection or thread behind
                    client.close();
                    throw e;
                }
            }
            return client;
        }
    }
}
