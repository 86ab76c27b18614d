package io.lodestar.cli;

import io.lodestar.core.model.ServiceInstance;
import io.lodestar.core.model.ServiceSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The console and watch read TTL left from Redis at most once a second per service, however many events come. */
class TtlLeftTest {
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final List<String> reads = new ArrayList<>();
    private final TtlLeft ttlLeft = new TtlLeft(service -> {
        reads.add(service);
        return Map.of(service + "-1", Duration.ofSeconds(20), service + "-2", Duration.ofMillis(300));
    }, nanos::get);

    @Test
    void manyEventsWithinASecondReadRedisOnce() {
        for (int event = 0; event < 50; event++) {
            ttlLeft.of(held("orders"));
            nanos.addAndGet(Duration.ofMillis(19).toNanos());
        }

        assertThat(reads).containsExactly("orders");
    }

    @Test
    void aSecondAfterTheLastReadRedisIsReadAgain() {
        ttlLeft.of(held("orders"));
        nanos.addAndGet(Duration.ofMillis(999).toNanos());
        ttlLeft.of(held("orders"));
        nanos.addAndGet(Duration.ofMillis(1).toNanos());

        ttlLeft.of(held("orders"));

        assertThat(reads).containsExactly("orders", "orders");
    }

    @Test
    void eachServiceIsReadOnItsOwn() {
        ttlLeft.of(held("orders"));
        ttlLeft.of(held("billing"));
        ttlLeft.of(held("orders"));

        assertThat(reads).containsExactly("orders", "billing");
    }

    @Test
    void anInstanceTheLastReadDidNotHaveIsReadAtOnceButNotMoreOftenThanTheMinimumAge() {
        ttlLeft.of(held("orders"));
        ServiceSnapshot withANewOne = new ServiceSnapshot("orders", 2, List.of(lease("orders", "orders-1"),
                lease("orders", "orders-2"), lease("orders", "orders-3")));

        nanos.addAndGet(TtlLeft.MIN_AGE.toNanos() - 1);
        ttlLeft.of(withANewOne);
        nanos.addAndGet(1);
        ttlLeft.of(withANewOne);

        assertThat(reads).containsExactly("orders", "orders");
    }

    @Test
    void betweenReadsTheTimeLeftCountsDownAndStopsAtZero() {
        assertThat(ttlLeft.of(held("orders"))).containsEntry("orders-1", Duration.ofSeconds(20));

        nanos.addAndGet(Duration.ofMillis(400).toNanos());

        assertThat(ttlLeft.of(held("orders"))).containsEntry("orders-1", Duration.ofMillis(19_600))
                .containsEntry("orders-2", Duration.ZERO);
    }

    /** The service as the read above knows it: two ephemeral instances. */
    private static ServiceSnapshot held(String service) {
        return new ServiceSnapshot(service, 1, List.of(lease(service, service + "-1"), lease(service, service + "-2")));
    }

    private static ServiceInstance lease(String service, String id) {
        return ServiceInstance.builder(service, id).host("10.0.0.7").port(8080).ttl(Duration.ofSeconds(30)).build();
    }
}
