package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.test.TestRedis;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Micrometer meters follow what the view does. */
class MetricsIT {
    @Test
    void viewAndCommandMetersCountWhatHappens() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        String namespace = "m-" + UUID.randomUUID().toString().substring(0, 8);
        LodestarOptions options = LodestarOptions.builder(TestRedis.standalone().uri()).namespace(namespace).build();

        try (LodestarClient writer = RedisLodestar.create(options);
             LodestarClient reader = RedisLodestar.create(options, meters)) {
            reader.discovery().getInstances("orders");
            writer.registry().register(instance("orders", "orders-1"));
            await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().getInstances("orders").size() == 1);
            for (int i = 0; i < 10; i++) {
                reader.discovery().getInstances("orders");
            }

            assertThat(meters.get("lodestar.view.reads").tag("view", "service").tag("namespace", namespace)
                    .functionCounter().count()).isGreaterThanOrEqualTo(10);
            assertThat(meters.get("lodestar.view.events.applied").tag("view", "service").functionCounter().count())
                    .isEqualTo(1);
            assertThat(meters.get("lodestar.view.topics").tag("view", "service").gauge().value()).isEqualTo(1);
            assertThat(meters.get("lodestar.view.stale").tag("view", "service").gauge().value()).isZero();
            assertThat(meters.get("lodestar.view.sync.age").tag("view", "service").timeGauge()
                    .value(TimeUnit.SECONDS)).isLessThan(5);
            assertThat(meters.get("lodestar.view.gaps").functionCounters()).isNotEmpty();
            assertThat(meters.get("lodestar.view.incarnations").functionCounters()).isNotEmpty();
            assertThat(meters.get("lodestar.sweep.failures").functionCounter().count()).isZero();
            assertThat(meters.get("lodestar.sweep.rounds").functionCounter()).isNotNull();
            assertThat(meters.get("lodestar.sweep.services").functionCounter()).isNotNull();
            assertThat(meters.get("lodestar.view.events.rejected").tag("view", "service").functionCounter().count())
                    .isZero();
            assertThat(meters.get("lodestar.view.resyncs").functionCounters()).isNotEmpty();
            assertThat(meters.get("lodestar.view.dropped").tag("view", "service").functionCounter().count()).isZero();
            assertThat(meters.find("lettuce.command.completion").timers()).isNotEmpty();
        }
    }

    @Test
    void aClientCreatedWithoutARegistryPublishesItsViewMetersOnceBound() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        String namespace = "m-" + UUID.randomUUID().toString().substring(0, 8);
        try (LodestarClient client = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
                .namespace(namespace).build())) {
            client.discovery().getInstances("orders");

            RedisLodestar.bindMetrics(client, meters);
            RedisLodestar.bindMetrics(client, meters); // again: nothing changes
            client.discovery().getInstances("orders");
            client.discovery().getInstances("orders");

            assertThat(meters.get("lodestar.view.topics").tag("view", "service").tag("namespace", namespace).gauges())
                    .singleElement().satisfies(topics -> assertThat(topics.value()).isEqualTo(1));
            assertThat(meters.find("lettuce.command.completion").timers()).as("only at creation").isEmpty();
            assertThat(meters.get("lodestar.view.reads").tag("view", "service").functionCounter().count())
                    .as("reads counted from the binding on, not the one before").isEqualTo(2);
        }
    }

    @Test
    void aClientWithoutARegistryDoesNotCountItsReads() {
        String namespace = "m-" + UUID.randomUUID().toString().substring(0, 8);
        try (LodestarClient client = RedisLodestar.create(LodestarOptions.builder(TestRedis.standalone().uri())
                .namespace(namespace).build())) {
            client.discovery().getInstances("orders");
            client.discovery().getInstances("orders");

            assertThat(((RedisLodestarClient) client).serviceView.reads.counting()).isFalse();
            assertThat(((RedisLodestarClient) client).serviceView.reads.sum()).isZero();
        }
    }

    @Test
    void aMeterFilterDenyingTheReadCountTurnsItOff() {
        // given a registry that denies lodestar.view.reads (how Micrometer users switch a meter off)
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        meters.config().meterFilter(MeterFilter.denyNameStartsWith("lodestar.view.reads"));
        String namespace = "m-" + UUID.randomUUID().toString().substring(0, 8);
        LodestarOptions options = LodestarOptions.builder(TestRedis.standalone().uri()).namespace(namespace).build();

        // when a client bound to it reads
        try (LodestarClient client = RedisLodestar.create(options, meters)) {
            client.discovery().getInstances("orders");
            client.discovery().getInstances("orders");

            // then its reads are not counted, and the other meters are there
            assertThat(meters.find("lodestar.view.reads").meters()).isEmpty();
            assertThat(((RedisLodestarClient) client).serviceView.reads.counting()).isFalse();
            assertThat(((RedisLodestarClient) client).serviceView.reads.sum()).isZero();
            assertThat(meters.get("lodestar.view.topics").tag("view", "service").gauge().value()).isEqualTo(1);
        }
    }
}
