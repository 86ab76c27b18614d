package io.lodestar.core;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What a health endpoint shows of a client: the reason for DOWN and the details, as both framework adapters use. */
class ClientHealthTest {
    private static final Instant AT = Instant.parse("2026-11-27T10:00:00Z");
    private static final ViewStatus FRESH = new ViewStatus(false, Duration.ZERO, AT, false);
    private static final ClientHealth.Registrations NONE = new ClientHealth.Registrations(0, null, 0, 0, 0);

    @Test
    void aHealthyClientHasNoReasonAndItsDetailsSayWhatItHolds() {
        ClientHealth health = new ClientHealth(List.of(new ClientHealth.Node("127.0.0.1:6379", true, AT)), FRESH,
                FRESH, new ClientHealth.Registrations(2, AT, 1, 0, 1));

        assertThat(health.reason()).isNull();
        assertThat(health.details()).containsOnlyKeys("nodes", "discovery", "config", "registrations")
                .containsEntry("nodes", List.of(Map.of("address", "127.0.0.1:6379", "connected", true,
                        "since", AT.toString())))
                .containsEntry("discovery", Map.of("stale", false, "staleFor", "PT0S", "lastSyncAt", AT.toString(),
                        "restoredFromDisk", false))
                .containsEntry("registrations", Map.of("held", 2, "lastRenewalAt", AT.toString(), "lateRenewals", 1L,
                        "failedRenewals", 0L, "takenOver", 1L));
    }

    @Test
    void aNodeThatGivesNoAnswerIsTheReasonWithItsProblem() {
        ClientHealth health = new ClientHealth(List.of(new ClientHealth.Node("127.0.0.1:6379", false, AT,
                "no answer from 127.0.0.1:6379 for 5 s")), new ViewStatus(true, Duration.ofSeconds(5), AT, false),
                FRESH, NONE);

        assertThat(health.reason()).isEqualTo("Redis not connected: 127.0.0.1:6379 (no answer from 127.0.0.1:6379"
                + " for 5 s); reads are served from the local view");
        assertThat(health.details()).containsEntry("reason", health.reason());
        assertThat(health.details().get("nodes")).asList().first()
                .isEqualTo(Map.of("address", "127.0.0.1:6379", "connected", false, "since", AT.toString(),
                        "problem", "no answer from 127.0.0.1:6379 for 5 s"));
    }

    @Test
    void aStaleViewIsTheReasonWhenEveryNodeIsConnected() {
        ClientHealth health = new ClientHealth(List.of(new ClientHealth.Node("127.0.0.1:6379", true, AT)),
                new ViewStatus(true, Duration.ofSeconds(3), AT, false), FRESH, NONE);

        assertThat(health.reason()).isEqualTo("view stale: discovery for PT3S, config for PT0S");
    }

    @Test
    void timesThatNeverHappenedAreLeftOutNotWrittenAsNull() {
        ClientHealth health = new ClientHealth(List.of(new ClientHealth.Node("127.0.0.1:6379", false, null)),
                new ViewStatus(true, Duration.ZERO, null, false), FRESH, NONE);

        Map<String, Object> details = health.details();

        assertThat(details.get("nodes")).asList().first().isEqualTo(Map.of("address", "127.0.0.1:6379",
                "connected", false));
        assertThat(((Map<?, ?>) details.get("discovery")).containsKey("lastSyncAt")).isFalse();
        assertThat(((Map<?, ?>) details.get("registrations")).containsKey("lastRenewalAt")).isFalse();
    }

    @Test
    void aStaleRemoteRegionIsReportedButLeavesTheClientHealthy() {
        ViewStatus stale = new ViewStatus(true, Duration.ofSeconds(7), AT, false);
        ClientHealth health = new ClientHealth(List.of(new ClientHealth.Node("127.0.0.1:6379", true, AT)), FRESH,
                FRESH, NONE, List.of(new ClientHealth.Region("us-east",
                List.of(new ClientHealth.Node("10.1.0.1:6379", false, AT)), stale)));

        assertThat(health.healthy()).isTrue();
        assertThat(health.reason()).isNull();
        assertThat(health.details().get("remoteRegions")).isEqualTo(List.of(Map.of("name", "us-east",
                "nodes", List.of(Map.of("address", "10.1.0.1:6379", "connected", false, "since", AT.toString())),
                "discovery", Map.of("stale", true, "staleFor", "PT7S", "lastSyncAt", AT.toString(),
                        "restoredFromDisk", false))));
    }
}
