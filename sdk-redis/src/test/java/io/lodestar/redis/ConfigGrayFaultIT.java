package io.lodestar.redis;

import io.lodestar.core.Initial;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRule;
import io.lodestar.core.model.InstanceIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A client with an identity, whose reads also look at gray releases, while Redis is unreachable. */
class ConfigGrayFaultIT extends PrivateRedisTest {
    private static final Duration CONVERGENCE = Duration.ofSeconds(10);

    @Test
    void aClientWithAnIdentityStillStartsFromTheSnapshotWhileRedisIsDown(@TempDir Path snapshots) {
        LodestarClient first = clients.connect(options -> options.configSnapshotDirectory(snapshots));
        ConfigEntry lastGood = snapshotted(first, snapshots);
        first.close();
        redis.kill();

        LodestarClient restarted = clients.connect(options -> options.configSnapshotDirectory(snapshots)
                .startupMode(StartupMode.OFFLINE).identity(new InstanceIdentity("app-1", Map.of("zone", "eu-1"))));

        assertThat(restarted.config().get("app")).as("the current entry, from disk").contains(lastGood);
    }

    @Test
    void listenersOfAClientStartedOfflineHearTheSnapshotAndThenTheGrayContentThatAppliesToIt(@TempDir Path snapshots) {
        // given a snapshot of a config, and Redis down when the app starts again
        LodestarClient first = clients.connect(options -> options.configSnapshotDirectory(snapshots));
        ConfigEntry lastGood = snapshotted(first, snapshots);
        first.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, GrayRule.metadata("zone", "eu-1"));
        RedisAdmin.run(redis, "SAVE");
        first.close();
        redis.kill();

        // when a client in the gray set starts offline and listens
        LodestarClient restarted = clients.connect(options -> options.configSnapshotDirectory(snapshots)
                .startupMode(StartupMode.OFFLINE).identity(new InstanceIdentity("app-1", Map.of("zone", "eu-1"))));
        List<ConfigEvent> heard = new CopyOnWriteArrayList<>();
        restarted.config().subscribe("app", heard::add, Initial.DELIVER);

        // then it hears the entry from disk at once (the release cannot be read), and the gray content once Redis
        // answers with the release
        await().atMost(CONVERGENCE).until(() -> heard.size() == 1);
        assertThat(((ConfigChanged) heard.get(0)).entry()).isEqualTo(lastGood);
        redis.restart(); // with what it saved: the entry and its release
        await().atMost(CONVERGENCE).until(() -> heard.size() == 2);
        assertThat(heard.get(1)).isInstanceOfSatisfying(ConfigChanged.class,
                changed -> assertThat(changed.entry().contentHash()).isNotEqualTo(lastGood.contentHash()));
        assertThat(restarted.config().get("app").map(ConfigEntry::contentHash))
                .contains(((ConfigChanged) heard.get(1)).entry().contentHash());
    }

    /** Writes config "app" through {@code client} and waits until its snapshot file holds it. */
    private ConfigEntry snapshotted(LodestarClient client, Path snapshots) {
        ConfigEntry written = client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        client.config().get("app");
        Snapshots<Optional<ConfigEntry>> files = Snapshots.configs(Optional.of(snapshots), clients.namespace(),
                LodestarOptions.builder(redis.uri()).build().redactedRedisUri(), Runnable::run);
        await().atMost(CONVERGENCE).until(() -> Optional.ofNullable(files.read("app"))
                .flatMap(SyncedView.Versioned::value).equals(Optional.of(written)));
        return written;
    }
}
