package io.lodestar.redis;

import io.lodestar.core.event.ServicesChanged;
import io.lodestar.core.internal.Validation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** An index's events applied as a batch: one copy of the set, and one listener event from before to after. */
class IndexSourceTest {
    private final IndexSource source = new IndexSource("channel", null, null, Validation::requireServiceId);

    @Test
    void aBatchAnnouncesWhatItAddedAndRemovedInOneEvent() {
        ViewSource.Batch<Set<String>, ServicesChanged> batch = source.batch(IndexSource.TOPIC, held("orders"));

        batch.apply(event(2, "added", "billing"));
        batch.apply(event(3, "added", "stock"));
        batch.apply(event(4, "removed", "orders"));
        batch.apply(event(5, "added", "audit"));
        batch.apply(event(6, "removed", "audit")); // came and went within the batch: no change to announce

        assertThat(batch.value()).containsExactly("billing", "stock");
        assertThat(batch.events()).containsExactly(
                new ServicesChanged(Set.of("billing", "stock"), Set.of("billing", "stock"), Set.of("orders")));
    }

    @Test
    void aBatchThatChangesNothingKeepsTheHeldSetAndAnnouncesNothing() {
        Set<String> held = set("orders");
        ViewSource.Batch<Set<String>, ServicesChanged> batch = source.batch(IndexSource.TOPIC,
                new SyncedView.Versioned<>(1, held));

        batch.apply(event(2, "added", "orders"));
        batch.apply(event(3, "removed", "billing"));

        assertThat(batch.value()).isSameAs(held);
        assertThat(batch.events()).isEmpty();
    }

    @Test
    void membersRedisLostAreKeptForTheTimeTheIndexIsGivenAndLeaveInOneChange() {
        IndexSource services = new IndexSource("channel", null, null, Validation::requireServiceId,
                member -> member.equals("orders") ? Duration.ofSeconds(40) : null);

        Map<String, Duration> lost = services.lost(IndexSource.TOPIC, set("orders", "stock", "billing"),
                set("billing"));
        ViewSource.Dropped<Set<String>, ServicesChanged> dropped = services.drop(IndexSource.TOPIC,
                held("orders", "stock", "billing"), List.of("orders"));

        assertThat(lost).containsOnlyKeys("orders", "stock").containsEntry("orders", Duration.ofSeconds(40))
                .containsEntry("stock", null);
        assertThat(dropped.value()).containsExactly("billing", "stock");
        assertThat(dropped.events()).containsExactly(
                new ServicesChanged(Set.of("billing", "stock"), Set.of(), Set.of("orders")));
    }

    @Test
    void theConfigIndexKeepsWhatRedisLostUntilWrittenAgain() {
        assertThat(source.lost(IndexSource.TOPIC, set("app", "db"), set("db"))).containsOnlyKeys("app")
                .containsEntry("app", null);
    }

    private static SyncedView.Versioned<Set<String>> held(String... members) {
        return new SyncedView.Versioned<>(1, set(members));
    }

    private static Set<String> set(String... members) {
        return Collections.unmodifiableSet(new TreeSet<>(Set.of(members)));
    }

    private static ViewSource.Message event(long revision, String type, String member) {
        return new ViewSource.Message(revision, Map.of("type", type, "id", member));
    }
}
