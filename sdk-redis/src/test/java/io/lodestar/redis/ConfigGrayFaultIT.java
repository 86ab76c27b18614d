package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A client with an identity, whose reads also look at gray releases, while Redis is unreachable. */
class ConfigGrayFaultIT extends PrivateRedisTest {
    private static final Duration CONVERGENCE = Duration.ofSeconds(10);

    @Test
    void aClientWithAnIdentityStillStartsFromTheSnapshotWhileRedisIsDown(@TempDir Path snapshots) {
        LodestarClient first = clients.connect(options -> options.configSnapshotDirectory(snapshots));
        ConfigEntry lastGood = first.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        first.config().get("app");
        ConfigSnapshots files = ConfigSnapshots.of(Optional.of(snapshots), clients.namespace(),
                LodestarOptions.builder(redis.uri()).build().redactedRedisUri(), Runnable::run);
        await().atMost(CONVERGENCE).until(() -> Optional.ofNullable(files.read("app"))
                .flatMap(SyncedView.Versioned::value).equals(Optional.of(lastGood)));
        first.close();
        redis.kill();

        LodestarClient restarted = clients.connect(options -> options.configSnapshotDirectory(snapshots)
                .startupMode(StartupMode.OFFLINE).identity(new InstanceIdentity("app-1", Map.of("zone", "eu-1"))));

        assertThat(restarted.config().get("app")).as("the current entry, from disk").contains(lastGood);
    }
}
