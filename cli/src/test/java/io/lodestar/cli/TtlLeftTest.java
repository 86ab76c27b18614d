package io.lodestar.cli;

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
            ttlLeft.of("orders");
            nanos.addAndGet(Duration.ofMillis(19).toNanos());
        }

        assertThat(reads).containsExactly("orders");
    }

    @Test
    void aSecondAfterTheLastReadRedisIsReadAgain() {
        ttlLeft.of("orders");
        nanos.addAndGet(Duration.ofMillis(999).toNanos());
        ttlLeft.of("orders");
        nanos.addAndGet(Duration.ofMillis(1).toNanos());

        ttlLeft.of("orders");

        assertThat(reads).containsExactly("orders", "orders");
    }

    @Test
    void eachServiceIsReadOnItsOwn() {
        ttlLeft.of("orders");
        ttlLeft.of("billing");
        ttlLeft.of("orders");

        assertThat(reads).containsExactly("orders", "billing");
    }

    @Test
    void betweenReadsTheTimeLeftCountsDownAndStopsAtZero() {
        assertThat(ttlLeft.of("orders")).containsEntry("orders-1", Duration.ofSeconds(20));

        nanos.addAndGet(Duration.ofMillis(400).toNanos());

        assertThat(ttlLeft.of("orders")).containsEntry("orders-1", Duration.ofMillis(19_600))
                .containsEntry("orders-2", Duration.ZERO);
    }
}
