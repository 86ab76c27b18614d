package io.lodestar.examples;

import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.Test;

import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRolledBack;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The README's quick start does what its comments say, against a real Redis. */
class QuickStartIT {
    @Test
    void quickStartRegistersDiscoversAndChoosesTheInstance() {
        URI chosen = QuickStart.quickStart(TestRedis.standalone().uri());

        assertThat(chosen).isEqualTo(URI.create("http://10.0.0.7:8080"));
    }

    @Test
    void configQuickStartEndsOnTheRolledBackContentAndTheListenerSeesEveryVersion() {
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();

        String current = QuickStart.configQuickStart(TestRedis.standalone().uri(), events::add);

        assertThat(current).isEqualTo("max-requests: 100");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(events)
                .hasExactlyElementsOfTypes(ConfigChanged.class, ConfigChanged.class, ConfigRolledBack.class));
    }

    @Test
    void embeddingQuickStartReadsWithoutBlockingDeliversTheCurrentConfigAndReportsHealth() {
        List<String> seen = QuickStart.embeddingQuickStart(TestRedis.standalone().uri());

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(seen).containsExactlyInAnyOrder(
                "billing: 0", "config: max-requests: 100", "orders up: 1, healthy: true"));
    }
}
