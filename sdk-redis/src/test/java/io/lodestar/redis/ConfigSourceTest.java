package io.lodestar.redis;

import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** How a resync turns history into the events a view missed. */
class ConfigSourceTest {
    @Test
    void keptVersionsAreChangesOrRollbacksAndMissingOnesAfterTheOldestKeptWereRemoves() {
        ConfigEntry v4 = entry(4, "b");
        ConfigEntry v6 = entry(6, "a");
        ConfigReads.Since since = new ConfigReads.Since(new SyncedView.Versioned<>(6, Optional.of(v6)), 2,
                List.of(new ConfigReads.Kept(v4, 0), new ConfigReads.Kept(v6, 2)));

        assertThat(ConfigSource.replay("app", 3, since)).containsExactly(new ConfigChanged("app", 4, v4),
                new ConfigRemoved("app", 5), new ConfigRolledBack("app", 6, 2, v6));
    }

    @Test
    void nothingMissedIsNoEvent() {
        ConfigReads.Since since = new ConfigReads.Since(new SyncedView.Versioned<>(3, Optional.of(entry(3, "a"))), 1,
                List.of());

        assertThat(ConfigSource.replay("app", 3, since)).isEmpty();
    }

    @Test
    void versionsTrimmedFromHistoryOrACounterThatWentBackCannotBeReplayed() {
        ConfigEntry v9 = entry(9, "z");
        ConfigReads.Since trimmed = new ConfigReads.Since(new SyncedView.Versioned<>(9, Optional.of(v9)), 9,
                List.of(new ConfigReads.Kept(v9, 0)));
        ConfigReads.Since restarted = new ConfigReads.Since(new SyncedView.Versioned<>(1, Optional.of(entry(1, "n"))),
                1, List.of());

        assertThat(ConfigSource.replay("app", 5, trimmed)).isNull();
        assertThat(ConfigSource.replay("app", 5, restarted)).isNull();
    }

    private static ConfigEntry entry(long version, String content) {
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L + version);
        return new ConfigEntry("app", content, ConfigFormat.TEXT, version, Digests.sha1Hex(content), at, at);
    }
}
