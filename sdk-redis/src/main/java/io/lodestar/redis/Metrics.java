package io.lodestar.redis;

import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerOptions;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.noop.NoopMeter;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/** Micrometer wiring; only loaded when a registry is given, so Micrometer stays an optional dependency. */
final class Metrics {
    private Metrics() {
    }

    static ClientResources.Builder withLatencies(ClientResources.Builder resources, MeterRegistry registry) {
        return resources.commandLatencyRecorder(
                new MicrometerCommandLatencyRecorder(registry, MicrometerOptions.create()));
    }

    static void bind(RedisLodestarClient client, MeterRegistry registry) {
        Tags namespace = Tags.of("namespace", client.namespace().name());
        counter(registry, "lodestar.sweep.failures", "Sweeps that failed while Redis answered (e.g. corrupt keys)",
                namespace, client.sweeper().failures);
        counter(registry, "lodestar.sweep.rounds", "Sweep rounds this client was elected for", namespace,
                client.sweeper().rounds);
        counter(registry, "lodestar.sweep.services", "Services this client's sweep rounds looked at (those due, or"
                + " all of them in a full pass)", namespace, client.sweeper().servicesSwept);
        bindViews(client, registry, namespace);
        client.remoteRegions().values().forEach(remote -> bindViews(remote, registry, namespace));
    }

    /**
     * The meters of a client's views; with a region named, tagged {@code region} as well (a remote region's
     * reader's with its region's name), so each region's staleness and sync age are apart.
     */
    private static void bindViews(RedisLodestarClient client, MeterRegistry registry, Tags namespace) {
        Tags region = client.options.region().map(name -> namespace.and("region", name)).orElse(namespace);
        client.views().forEach((name, view) -> {
            Tags tags = region.and("view", name);
            FunctionCounter reads = FunctionCounter.builder("lodestar.view.reads", view.reads, ReadCounter::sum)
                    .tags(tags).description("Reads answered from the local view since metrics were bound (counted"
                            + " without a lock: may miss a few of many threads reading at once, never counts too"
                            + " many)").register(registry);
            if (!(reads instanceof NoopMeter)) { // denied by a MeterFilter: reads stay uncounted, at no cost
                view.reads.start();
            }
            counter(registry, "lodestar.view.events.applied", "PubSub events applied to the view", tags,
                    view.eventsApplied);
            counter(registry, "lodestar.view.resyncs", "Times a held entry was re-read from Redis", tags,
                    view.resyncs);
            counter(registry, "lodestar.view.gaps", "Events that revealed a missed revision", tags, view.gaps);
            counter(registry, "lodestar.view.incarnations", "Events of other keys than the held ones (lost and"
                    + " written again); each made its entry re-read", tags, view.incarnations);
            counter(registry, "lodestar.view.dataloss", "Entries whose keys Redis lost and wrote anew with fewer"
                    + " items than the view held; each kept serving them until their owners wrote them again", tags,
                    view.dataLosses);
            counter(registry, "lodestar.view.overflows", "Events dropped by a bound (view inbox, load buffer,"
                    + " listener queue); the view or listener re-reads the state instead", tags, view.overflows);
            counter(registry, "lodestar.view.events.rejected", "Events dropped as impossible (forged or corrupt)",
                    tags, view.rejected);
            counter(registry, "lodestar.view.dropped", "Entries dropped because the view held viewTopicLimit"
                    + " entries (the one read least recently, never one with listeners)", tags, view.limitDrops);
            Gauge.builder("lodestar.view.topics", view, SyncedView::size).tags(tags)
                    .description("Entries (services, configs) the view holds").register(registry);
            Gauge.builder("lodestar.view.stale", view, v -> v.api().status().stale() ? 1 : 0).tags(tags)
                    .description("1 while the view cannot hear from Redis").register(registry);
            TimeGauge.builder("lodestar.view.sync.age", view, TimeUnit.NANOSECONDS,
                            v -> Math.max(0, v.nanosSinceLastSync())).tags(tags)
                    .description("Time since the view last heard from Redis").register(registry);
        });
    }

    private static void counter(MeterRegistry registry, String name, String description, Tags tags,
                                LongAdder adder) {
        FunctionCounter.builder(name, adder, LongAdder::sum).tags(tags).description(description).register(registry);
    }
}
