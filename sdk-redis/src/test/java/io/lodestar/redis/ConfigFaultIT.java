package io.lodestar.redis;

import io.lodestar.core.Initial;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.UnavailableException;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Config views under faults, on a private Redis this test may kill: lost PubSub connections, a restart that loses
 * every key, and a start while Redis is down (served from the snapshot directory).
 */
class ConfigFaultIT extends PrivateRedisTest {
    private static final Duration CONVERGENCE = Duration.ofSeconds(10);
    private static final Executor DIRECT = Runnable::run;


    @Test
    void viewsAndListenersConvergeAfterTheirPubSubConnectionsAreKilledWhileAnotherClientWrites() {
        LodestarClient writer = clients.connect();
        List<LodestarClient> readers = List.of(clients.connect(), clients.connect());
        List<List<Long>> heard = List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
        for (int i = 0; i < readers.size(); i++) {
            List<Long> versions = heard.get(i);
            readers.get(i).config().subscribe("app", event -> versions.add(event.version()));
            readers.get(i).config().get("app");
        }

        ConfigEntry last = null;
        for (int i = 1; i <= 30; i++) {
            last = writer.config().set("app", "a=" + i, ConfigFormat.PROPERTIES);
            if (i % 10 == 0) { // once the readers are back from the last kill (Lettuce reconnects in the background)
                await().atMost(CONVERGENCE).until(() -> redis.disconnectClients("pubsub") > 0);
            }
        }

        ConfigEntry expected = last;
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            for (LodestarClient reader : readers) {
                assertThat(reader.config().get("app")).contains(expected);
            }
        });
        for (List<Long> versions : heard) { // what a reader missed while disconnected is replayed from history
            assertThat(versions).containsExactlyElementsOf(LongStream.rangeClosed(1, 30).boxed().toList());
        }
    }

    @Test
    void whileRedisIsDownTheViewServesItsLastStateMarkedStaleAndWritesFailFast() {
        LodestarClient client = clients.connect();
        ConfigEntry held = client.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        assertThat(client.config().get("app")).contains(held);

        redis.kill();

        await().atMost(CONVERGENCE).until(() -> client.config().status().stale());
        assertThat(client.config().get("app")).contains(held);
        assertThat(client.config().status().restoredFromDisk()).isFalse();
        assertThatThrownBy(() -> client.config().set("app", "a=2", ConfigFormat.PROPERTIES))
                .isInstanceOf(UnavailableException.class).hasMessageContaining("set config 'app'")
                .hasMessageContaining(redis.uri());
        assertThatThrownBy(() -> client.config().get("other")).isInstanceOf(UnavailableException.class)
                .hasMessageContaining("load config 'other'");
    }

    @Test
    void afterARestartLosesEveryKeyTheViewsKeepTheLastContentUntilWrittenAgainThenMatchRedis() {
        LodestarClient writer = clients.connect();
        RedisLodestarClient reader = (RedisLodestarClient) clients.connect();
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", events::add);
        for (int i = 1; i <= 5; i++) {
            writer.config().set("app", "a=" + i, ConfigFormat.PROPERTIES);
        }
        writer.config().set("gone", "g", ConfigFormat.TEXT);
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(reader.config().get("app")).hasValueSatisfying(e -> assertThat(e.version()).isEqualTo(5));
            assertThat(reader.config().get("gone")).isPresent();
        });

        redis.kill();
        redis.restart(); // empty: versions start over at 1

        // a config Redis lost keeps its last content (see docs/redis.md, "When Redis loses its data")
        await().atMost(CONVERGENCE).until(() -> reader.views().get("config").dataLosses.sum() == 2);
        assertThat(reader.config().get("app")).hasValueSatisfying(e -> assertThat(e.version()).isEqualTo(5));
        assertThat(reader.config().get("gone")).isPresent();
        ConfigEntry fresh = await().atMost(CONVERGENCE).ignoreException(UnavailableException.class)
                .until(() -> writer.config().set("app", "fresh", ConfigFormat.TEXT), entry -> true);

        assertThat(fresh.version()).isEqualTo(1);
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(reader.config().get("app")).contains(fresh);
            assertThat(events).last().isEqualTo(new ConfigChanged("app", 1, fresh));
        });
    }

    @Test
    void aClientStartsFromTheSnapshotWhileRedisIsDownAndCatchesUpWhenItReturns(@TempDir Path snapshots)
            throws IOException {
        LodestarClient first = clients.connect(options -> options.configSnapshotDirectory(snapshots));
        first.config().set("app/db.yaml", "url: one", ConfigFormat.YAML);
        first.config().get("app/db.yaml");
        ConfigEntry lastGood = first.config().set("app/db.yaml", "url: two", ConfigFormat.YAML);
        Snapshots<Optional<ConfigEntry>> files = Snapshots.configs(Optional.of(snapshots), clients.namespace(),
                LodestarOptions.builder(redis.uri()).build().redactedRedisUri(), DIRECT);
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(saved(files, "app/db.yaml")).contains(lastGood));
        first.close();
        redis.kill();

        LodestarClient restarted = clients.connect(options -> options.configSnapshotDirectory(snapshots)
                .startupMode(StartupMode.OFFLINE));

        assertThat(restarted.config().get("app/db.yaml")).contains(lastGood);
        assertThat(restarted.config().status().restoredFromDisk()).isTrue();
        assertThat(restarted.config().status().stale()).isTrue();
        assertThatThrownBy(() -> restarted.config().get("no-snapshot")).isInstanceOf(UnavailableException.class);
        assertThatThrownBy(() -> restarted.config().set("app/db.yaml", "url: three", ConfigFormat.YAML))
                .isInstanceOf(UnavailableException.class);

        redis.restart(); // empty
        ConfigEntry current = await().atMost(CONVERGENCE).ignoreException(UnavailableException.class)
                .until(() -> restarted.config().set("app/db.yaml", "url: three", ConfigFormat.YAML), entry -> true);

        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(restarted.config().get("app/db.yaml")).contains(current);
            assertThat(saved(files, "app/db.yaml")).contains(current);
            assertThat(restarted.config().status().stale()).isFalse();
            // one file per entry, nothing left beside it; asserted with the rest because the client may still be
            // rewriting the file (a resync writes it again), and a write goes through a temporary file
            try (Stream<Path> written = Files.list(snapshots.resolve(clients.namespace()))) {
                assertThat(written).hasSize(1);
            }
        });
    }

    @Test
    void listenersOfAValueRestoredFromDiskHearTheOtherContentRedisHoldsAtThatVersion(@TempDir Path snapshots) {
        // given a snapshot of version 1 with content A
        LodestarClient first = clients.connect(options -> options.configSnapshotDirectory(snapshots));
        ConfigEntry onDisk = first.config().set("app", "a=A", ConfigFormat.PROPERTIES);
        first.config().get("app");
        Snapshots<Optional<ConfigEntry>> files = Snapshots.configs(Optional.of(snapshots), clients.namespace(),
                LodestarOptions.builder(redis.uri()).build().redactedRedisUri(), DIRECT);
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(saved(files, "app")).contains(onDisk));
        first.close();
        // and a Redis that lost its data and was written again: version 1 with content B
        RedisAdmin.run(redis, "FLUSHALL");
        ConfigEntry inRedis = clients.connect().config().set("app", "a=B", ConfigFormat.PROPERTIES);
        assertThat(inRedis.version()).isEqualTo(onDisk.version());
        RedisAdmin.run(redis, "SAVE");
        redis.kill();

        // when a client starts from the snapshot while Redis is down, with listeners, and Redis comes back
        LodestarClient restarted = clients.connect(options -> options.configSnapshotDirectory(snapshots)
                .startupMode(StartupMode.OFFLINE));
        assertThat(restarted.config().get("app")).contains(onDisk);
        List<ConfigEvent> delivered = new CopyOnWriteArrayList<>();
        List<ConfigEvent> plain = new CopyOnWriteArrayList<>();
        restarted.config().subscribe("app", delivered::add, Initial.DELIVER);
        restarted.config().subscribe("app", plain::add);
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(delivered).containsExactly(new ConfigChanged("app", 1, onDisk)));
        redis.restart(); // with what it saved: version 1, content B

        // then both listeners hear what Redis holds
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(restarted.config().get("app")).contains(inRedis);
            assertThat(delivered).containsExactly(new ConfigChanged("app", 1, onDisk),
                    new ConfigChanged("app", 1, inRedis));
            assertThat(plain).containsExactly(new ConfigChanged("app", 1, inRedis));
        });
    }

    /** The entry the snapshot file holds (empty: none, or not written yet). */
    private static Optional<ConfigEntry> saved(Snapshots<Optional<ConfigEntry>> files, String id) {
        return Optional.ofNullable(files.read(id)).flatMap(SyncedView.Versioned::value);
    }
}
