package io.lodestar.redis;

import io.lodestar.core.ClientClosedException;
import io.lodestar.core.ConfigReader;
import io.lodestar.core.ConfigService;
import io.lodestar.core.ConflictException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.internal.Validation;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.ConfigRemoved;
import io.lodestar.core.event.ConfigRolledBack;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** What the config service promises, on any deployment; subclasses say which Redis. */
abstract class ConfigContract extends NamespaceTest {
    private static final Duration WAIT = Duration.ofSeconds(5);


    @Test
    void aSetEntryCarriesItsVersionRedisComputedHashFormatAndTimes() {
        ConfigService config = clients.connect().config();
        String content = "url: jdbc:postgresql://db/app\ngreeting: héllo ✓\n";

        ConfigEntry entry = config.set("app/db.yaml", content, ConfigFormat.YAML);

        assertThat(entry.id()).isEqualTo("app/db.yaml");
        assertThat(entry.version()).isEqualTo(1);
        assertThat(entry.content()).isEqualTo(content);
        assertThat(entry.format()).isEqualTo(ConfigFormat.YAML);
        assertThat(entry.contentHash()).isEqualTo(Digests.sha1Hex(content));
        assertThat(entry.createdAt()).isEqualTo(entry.updatedAt());
        assertThat(config.get("app/db.yaml")).contains(entry);
        assertThat(config.history("app/db.yaml")).containsExactly(entry);
    }

    @Test
    void everyChangeIsTheNextVersionAndAnIdenticalSetIsANoOpWithoutEvent() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", events::add);
        assertThat(reader.config().get("app")).isEmpty();

        ConfigEntry first = writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        ConfigEntry second = writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        ConfigEntry again = writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        ConfigEntry reformatted = writer.config().set("app", "a=2", ConfigFormat.TEXT);
        ConfigEntry last = writer.config().set("app", "a=3", ConfigFormat.PROPERTIES);

        assertThat(first.version()).isEqualTo(1);
        assertThat(second.version()).isEqualTo(2);
        assertThat(again).isEqualTo(second);
        assertThat(reformatted.version()).isEqualTo(3);
        assertThat(last.version()).isEqualTo(4);
        await().atMost(WAIT).untilAsserted(() -> assertThat(events).hasSize(4));
        assertThat(events).extracting(ConfigEvent::version).containsExactly(1L, 2L, 3L, 4L);
        assertThat(writer.config().history("app")).extracting(ConfigEntry::version).containsExactly(4L, 3L, 2L, 1L);
    }

    @Test
    void aWriterReadsItsOwnWritesFromItsViewAsSoonAsTheyReturn() {
        ConfigService config = clients.connect().config();
        assertThat(config.get("app")).isEmpty();

        ConfigEntry written = config.set("app", "a=1", ConfigFormat.PROPERTIES);
        assertThat(config.get("app")).contains(written);

        ConfigEntry swapped = config.compareAndSet("app", "a=2", ConfigFormat.PROPERTIES, 1);
        assertThat(config.get("app")).contains(swapped);

        assertThat(config.remove("app")).isTrue();
        assertThat(config.get("app")).isEmpty();

        ConfigEntry restored = config.rollback("app", 1);
        assertThat(config.get("app")).contains(restored);
    }

    @Test
    void anotherClientsListenerSeesChangedRolledBackAndRemovedInOrderOnLodestarThreads() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        reader.config().subscribe("feature.flags", event -> {
            events.add(event);
            threads.add(Thread.currentThread().getName());
        });
        reader.config().get("feature.flags");

        ConfigEntry v1 = writer.config().set("feature.flags", "{\"dark\":true}", ConfigFormat.JSON);
        writer.config().set("feature.flags", "{\"dark\":false}", ConfigFormat.JSON);
        ConfigEntry v3 = writer.config().rollback("feature.flags", 1);
        writer.config().remove("feature.flags");

        await().atMost(WAIT).untilAsserted(() -> assertThat(events).hasSize(4));
        assertThat(events.get(0)).isEqualTo(new ConfigChanged("feature.flags", 1, v1));
        assertThat(events.get(1)).isInstanceOfSatisfying(ConfigChanged.class, changed ->
                assertThat(changed.entry().content()).isEqualTo("{\"dark\":false}"));
        assertThat(events.get(2)).isEqualTo(new ConfigRolledBack("feature.flags", 3, 1, v3));
        assertThat(v3.content()).isEqualTo(v1.content());
        assertThat(events.get(3)).isEqualTo(new ConfigRemoved("feature.flags", 4));
        assertThat(threads).allSatisfy(name -> assertThat(name).startsWith("lodestar-listener-"));
        assertThat(reader.config().get("feature.flags")).isEmpty();
    }

    @Test
    void removeSaysWhetherTheEntryExistedAndKeepsItsHistory() {
        ConfigService config = clients.connect().config();
        config.set("app", "a=1", ConfigFormat.PROPERTIES);

        assertThat(config.remove("app")).isTrue();
        assertThat(config.remove("app")).isFalse();
        assertThat(config.remove("never-set")).isFalse();

        assertThat(config.get("app")).isEmpty();
        assertThat(config.history("app")).extracting(ConfigEntry::content).containsExactly("a=1");
        assertThat(config.set("app", "a=2", ConfigFormat.PROPERTIES).version())
                .as("versions go on after a remove (the remove was version 2)").isEqualTo(3);
    }

    @Test
    void compareAndRemoveRemovesOnlyTheVersionItExpectsAndReportsAnyOtherAsAConflict() {
        ConfigService config = clients.connect().config();
        config.set("app", "a=1", ConfigFormat.PROPERTIES);
        config.set("app", "a=2", ConfigFormat.PROPERTIES);

        assertThatThrownBy(() -> config.compareAndRemove("app", 1)).isInstanceOf(ConflictException.class)
                .hasMessageContaining("expected version 1 but the current version is 2")
                .satisfies(e -> assertThat(((ConflictException) e).currentVersion()).isEqualTo(2));
        assertThat(config.get("app")).as("untouched by the conflict").isPresent();
        config.compareAndRemove("app", 2);

        assertThat(config.get("app")).isEmpty();
        assertThat(config.list()).doesNotContain("app");
        assertThatThrownBy(() -> config.compareAndRemove("app", 2)).isInstanceOf(ConflictException.class)
                .satisfies(e -> assertThat(((ConflictException) e).currentVersion()).isZero());
        assertThatThrownBy(() -> config.compareAndRemove("app", 0)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("expectedVersion must be between 1 and");
        assertThat(config.async().compareAndRemove("app", 3)).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(ConflictException.class);
    }

    @Test
    void historyIsNewestFirstAndTrimmedToTheConfiguredLimit() {
        ConfigService config = clients.connect(options -> options.configHistoryLimit(3)).config();
        for (int i = 1; i <= 5; i++) {
            config.set("app", "a=" + i, ConfigFormat.PROPERTIES);
        }

        assertThat(config.history("app")).extracting(ConfigEntry::version).containsExactly(5L, 4L, 3L);
        assertThat(config.getVersion("app", 4)).hasValueSatisfying(entry ->
                assertThat(entry.content()).isEqualTo("a=4"));
        assertThat(config.getVersion("app", 2)).isEmpty();
        assertThat(config.getVersion("app", 99)).isEmpty();
        assertThat(config.history("never-set")).isEmpty();
    }

    @Test
    void rollbackMakesAKeptVersionCurrentAgainAsTheNextVersion() {
        ConfigService config = clients.connect().config();
        ConfigEntry v1 = config.set("app", "a: 1", ConfigFormat.YAML);
        config.set("app", "{\"a\":2}", ConfigFormat.JSON);

        ConfigEntry rolledBack = config.rollback("app", 1);

        assertThat(rolledBack.version()).isEqualTo(3);
        assertThat(rolledBack.content()).isEqualTo(v1.content());
        assertThat(rolledBack.format()).isEqualTo(ConfigFormat.YAML);
        assertThat(rolledBack.contentHash()).isEqualTo(v1.contentHash());
        assertThat(rolledBack.createdAt()).isEqualTo(v1.createdAt());
        assertThat(config.get("app")).contains(rolledBack);
        assertThat(config.rollback("app", 1)).as("already current: a no-op").isEqualTo(rolledBack);
        assertThat(config.history("app")).extracting(ConfigEntry::version).containsExactly(3L, 2L, 1L);
    }

    @Test
    void rollbackWorksAfterARemove() {
        ConfigService config = clients.connect().config();
        ConfigEntry v1 = config.set("app", "a=1", ConfigFormat.PROPERTIES);
        config.set("app", "a=2", ConfigFormat.PROPERTIES);
        config.remove("app");
        assertThat(config.list()).doesNotContain("app");

        ConfigEntry restored = config.rollback("app", 2);

        assertThat(restored.version()).isEqualTo(4);
        assertThat(restored.content()).isEqualTo("a=2");
        assertThat(restored.createdAt()).as("the entry keeps its creation time").isEqualTo(v1.createdAt());
        assertThat(config.get("app")).contains(restored);
        assertThat(config.list()).contains("app");
    }

    @Test
    void rollbackToAVersionThatIsNotKeptSaysWhatIsKept() {
        ConfigService config = clients.connect(options -> options.configHistoryLimit(2)).config();
        for (int i = 1; i <= 3; i++) {
            config.set("app", "a=" + i, ConfigFormat.PROPERTIES);
        }

        assertThatThrownBy(() -> config.rollback("app", 1))
                .isInstanceOfSatisfying(NotFoundException.class, e -> {
                    assertThat(e.kind()).isEqualTo("config version");
                    assertThat(e.id()).isEqualTo("app@1");
                })
                .hasMessageContaining("Version 1 of config 'app' is not in its history in namespace '"
                        + clients.namespace() + "' (kept: versions 2..3, 2 of at most 2)");
        assertThatThrownBy(() -> config.rollback("never-set", 1)).isInstanceOf(NotFoundException.class)
                .hasMessageContaining("(no version is kept)");
        assertThat(config.get("app")).hasValueSatisfying(entry -> assertThat(entry.version()).isEqualTo(3));
    }

    @Test
    void compareAndSetWritesOnlyOverTheExpectedVersion() {
        ConfigService config = clients.connect().config();

        assertThat(config.compareAndSet("app", "a=1", ConfigFormat.PROPERTIES, 0).version()).isEqualTo(1);
        assertThatThrownBy(() -> config.compareAndSet("app", "a=x", ConfigFormat.PROPERTIES, 0))
                .isInstanceOfSatisfying(ConflictException.class, e -> assertThat(e.currentVersion()).isEqualTo(1));
        assertThat(config.compareAndSet("app", "a=2", ConfigFormat.PROPERTIES, 1).version()).isEqualTo(2);
        assertThatThrownBy(() -> config.compareAndSet("app", "a=3", ConfigFormat.PROPERTIES, 1))
                .isInstanceOfSatisfying(ConflictException.class, e -> {
                    assertThat(e.id()).isEqualTo("app");
                    assertThat(e.expectedVersion()).isEqualTo(1);
                    assertThat(e.currentVersion()).isEqualTo(2);
                })
                .hasMessageContaining("Conflict on 'app': expected version 1 but the current version is 2");
        assertThat(config.get("app")).hasValueSatisfying(entry -> assertThat(entry.content()).isEqualTo("a=2"));

        config.remove("app");
        assertThatThrownBy(() -> config.compareAndSet("app", "a=4", ConfigFormat.PROPERTIES, 2))
                .isInstanceOfSatisfying(ConflictException.class, e -> assertThat(e.currentVersion()).isZero());
        assertThat(config.compareAndSet("app", "a=4", ConfigFormat.PROPERTIES, 0).version())
                .as("0 = only if absent, also after a remove").isEqualTo(4);
    }

    @Test
    void exactlyOneOfManyRacingCompareAndSetsWins() throws Exception {
        List<LodestarClient> writers = List.of(clients.connect(), clients.connect(), clients.connect(),
                clients.connect());
        long base = writers.get(0).config().set("app", "base", ConfigFormat.TEXT).version();
        int racers = 8;
        CountDownLatch ready = new CountDownLatch(racers);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            List<Future<Object>> outcomes = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                ConfigService config = writers.get(i % writers.size()).config();
                String content = "writer-" + i;
                outcomes.add(pool.submit(() -> {
                    ready.countDown();
                    start.await();
                    try {
                        return config.compareAndSet("app", content, ConfigFormat.TEXT, base);
                    } catch (ConflictException lost) {
                        return lost;
                    }
                }));
            }
            assertThat(ready.await(5, TimeUnit.SECONDS)).isTrue();
            start.countDown();
            List<Object> results = new ArrayList<>();
            for (Future<Object> outcome : outcomes) {
                results.add(outcome.get(10, TimeUnit.SECONDS));
            }

            List<ConfigEntry> won = results.stream().filter(ConfigEntry.class::isInstance)
                    .map(ConfigEntry.class::cast).toList();
            assertThat(won).hasSize(1);
            assertThat(won.get(0).version()).isEqualTo(base + 1);
            assertThat(results).filteredOn(ConflictException.class::isInstance).hasSize(racers - 1)
                    .allSatisfy(lost -> assertThat(((ConflictException) lost).currentVersion()).isEqualTo(base + 1));
            assertThat(writers.get(1).config().history("app")).extracting(ConfigEntry::content)
                    .containsExactly(won.get(0).content(), "base");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aListenerGetsEveryVersionOfABurstOnceAndInOrder() {
        // history keeps the whole burst: should the reader resync mid-burst, it replays from history
        LodestarClient writer = clients.connect(options -> options.configHistoryLimit(250));
        LodestarClient reader = clients.connect();
        List<Long> versions = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", event -> versions.add(event.version()));
        int burst = 200;

        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES); // loads the script: the rest keep their order
        for (int i = 2; i <= burst; i++) {
            writer.config().async().set("app", "a=" + i, ConfigFormat.PROPERTIES);
        }
        ConfigEntry last = writer.config().set("app", "a=" + burst, ConfigFormat.PROPERTIES); // identical: no-op

        assertThat(last.version()).isEqualTo(burst);
        await().atMost(WAIT).untilAsserted(() -> assertThat(versions).last().isEqualTo((long) burst));
        assertThat(versions).containsExactlyElementsOf(LongStream.rangeClosed(1, burst).boxed().toList());
        assertThat(reader.config().get("app")).contains(last);
    }

    @Test
    void aThrowingListenerDoesNotStopTheOthers() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<Long> seen = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", event -> {
            throw new IllegalStateException("a broken listener (expected in this test)");
        });
        reader.config().subscribe("app", event -> seen.add(event.version()));
        reader.config().get("app");

        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);

        await().atMost(WAIT).untilAsserted(() -> assertThat(seen).containsExactly(1L, 2L));
    }

    @Test
    void aClosedSubscriptionHearsNothingMore() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        List<Long> closed = new CopyOnWriteArrayList<>();
        List<Long> open = new CopyOnWriteArrayList<>();
        var subscription = reader.config().subscribe("app", event -> closed.add(event.version()));
        reader.config().subscribe("app", event -> open.add(event.version()));
        reader.config().get("app");
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        await().atMost(WAIT).untilAsserted(() -> assertThat(closed).containsExactly(1L));

        subscription.close();
        subscription.close();
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);

        await().atMost(WAIT).untilAsserted(() -> assertThat(open).containsExactly(1L, 2L));
        assertThat(closed).containsExactly(1L);
    }

    @Test
    void listNamesTheConfigsThatExist() {
        ConfigService config = clients.connect().config();
        assertThat(config.list()).isEmpty();
        config.set("app/db.yaml", "a: 1", ConfigFormat.YAML);
        config.set("feature.flags", "{}", ConfigFormat.JSON);
        config.set("x", "x", ConfigFormat.TEXT);

        config.remove("x");

        assertThat(config.list()).containsExactly("app/db.yaml", "feature.flags");
        assertThat(clients.connect().config().list()).containsExactly("app/db.yaml", "feature.flags");
    }

    @Test
    void aNamespaceListenerSeesEveryConfigIncludingOnesCreatedLater() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        writer.config().set("existing", "a=1", ConfigFormat.PROPERTIES);
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        reader.config().subscribeAll(events::add);

        ConfigEntry created = writer.config().set("created/later", "b=1", ConfigFormat.PROPERTIES);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(events).containsExactly(new ConfigChanged("created/later", 1, created)));
        reader.config().get("existing");
        ConfigEntry changed = writer.config().set("existing", "a=2", ConfigFormat.PROPERTIES);
        writer.config().remove("created/later");
        ConfigEntry back = writer.config().rollback("created/later", 1);

        await().atMost(WAIT).untilAsserted(() -> assertThat(events).hasSize(4));
        assertThat(events).contains(new ConfigChanged("existing", 2, changed));
        assertThat(events).filteredOn(event -> event.configId().equals("created/later"))
                .containsExactly(new ConfigChanged("created/later", 1, created), new ConfigRemoved("created/later", 2),
                        new ConfigRolledBack("created/later", 3, 1, back));
    }

    @Test
    void aDirectReadAnswersWhatTheLastWriteLeftWithoutWaitingForAnEvent() {
        LodestarClient writer = clients.connect();
        ConfigReader direct = clients.connect().directConfig();
        ConfigEntry first = writer.config().set("app/db.yaml", "url: a", ConfigFormat.YAML);

        assertThat(direct.get("app/db.yaml")).contains(first);

        ConfigEntry second = writer.config().set("app/db.yaml", "url: b", ConfigFormat.YAML);

        assertThat(direct.get("app/db.yaml")).as("read from Redis, not from a view an event updates")
                .contains(second);
    }

    @Test
    void aDirectReadAnswersAsTheViewOnceTheViewIsCurrent() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        ConfigEntry rolledBack = writer.config().rollback("app",
                writer.config().set("app", "a=2", ConfigFormat.PROPERTIES).version() - 1);

        await().atMost(WAIT).untilAsserted(() -> assertThat(reader.config().get("app")).contains(rolledBack));
        assertThat(reader.directConfig().get("app")).isEqualTo(reader.config().get("app"));
    }

    @Test
    void aDirectReadOfAConfigNeverSetOrRemovedIsEmpty() {
        LodestarClient writer = clients.connect();
        ConfigReader direct = clients.connect().directConfig();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);

        writer.config().remove("app");

        assertThat(direct.get("app")).as("removed").isEmpty();
        assertThat(direct.get("never-set")).isEmpty();
    }

    @Test
    void aDirectReadRejectsABadIdAndFailsOnceTheClientIsClosed() {
        LodestarClient client = clients.connect();
        ConfigReader direct = client.directConfig();

        assertThatThrownBy(() -> direct.get("bad id")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configId must be 1-128 characters of [A-Za-z0-9._/-]")
                .hasMessageContaining("but was 'bad id'");
        assertThatThrownBy(() -> direct.get(null)).isInstanceOf(InvalidArgumentException.class);

        client.close();

        assertThatThrownBy(() -> direct.get("app")).isInstanceOf(ClientClosedException.class);
    }

    @Test
    void badInputIsRejectedWithFieldValueAndRule() {
        ConfigService config = clients.connect().config();
        String tooLarge = "x".repeat(Validation.MAX_CONFIG_CONTENT_BYTES + 1);

        assertThatThrownBy(() -> config.get("")).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configId must be 1-128 characters of [A-Za-z0-9._/-]")
                .hasMessageContaining("but was ''");
        assertThatThrownBy(() -> config.set("", "x", ConfigFormat.TEXT)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("configId must be");
        assertThatThrownBy(() -> config.set("bad id", "x", ConfigFormat.TEXT))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("but was 'bad id'");
        assertThatThrownBy(() -> config.set("app", tooLarge, ConfigFormat.TEXT))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("content must be at most 1048576 bytes of UTF-8 as stored (JSON escapes"
                        + " included), but was '1048577 bytes'");
        assertThatThrownBy(() -> config.set("app", "x", null)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("format must be non-null");
        assertThatThrownBy(() -> config.set("app", null, ConfigFormat.TEXT))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("content must be non-null");
        assertThatThrownBy(() -> config.compareAndSet("app", "x", ConfigFormat.TEXT, -1))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("expectedVersion must be between 0 and");
        assertThatThrownBy(() -> config.getVersion("app", 0)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("version must be between 1 and");
        assertThatThrownBy(() -> config.rollback("app", -3)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("version must be between 1 and");
        assertThatThrownBy(() -> config.subscribe("app", null)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("listener must be non-null");
        assertThatThrownBy(() -> config.async().set("", "x", ConfigFormat.TEXT).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(InvalidArgumentException.class);
        assertThat(config.list()).as("nothing was written").isEmpty();
    }

    @Test
    void contentUpToTheLimitIsStoredAndReadBackWhole() {
        LodestarClient writer = clients.connect();
        LodestarClient reader = clients.connect();
        String large = "é".repeat(Validation.MAX_CONFIG_CONTENT_BYTES / 2); // 2 bytes each: exactly the limit

        ConfigEntry written = writer.config().set("large", large, ConfigFormat.TEXT);

        assertThat(reader.config().get("large")).contains(written);
        assertThat(written.contentHash()).isEqualTo(Digests.sha1Hex(large));
    }

    @Test
    void theAsyncApiCompletesWithTheSameResults() {
        ConfigService config = clients.connect().config();
        var async = config.async();

        ConfigEntry v1 = async.set("app", "a=1", ConfigFormat.PROPERTIES).toCompletableFuture().join();
        ConfigEntry v2 = async.compareAndSet("app", "a=2", ConfigFormat.PROPERTIES, 1).toCompletableFuture().join();
        assertThat(config.get("app")).contains(v2);
        assertThatThrownBy(() -> async.compareAndSet("app", "a=3", ConfigFormat.PROPERTIES, 1)
                .toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(ConflictException.class);
        assertThat(async.history("app").toCompletableFuture().join()).containsExactly(v2, v1);
        assertThat(async.getVersion("app", 1).toCompletableFuture().join()).contains(v1);
        assertThat(async.list().toCompletableFuture().join()).containsExactly("app");
        assertThat(async.remove("app").toCompletableFuture().join()).isTrue();
        assertThat(config.get("app")).isEmpty();
        ConfigEntry v4 = async.rollback("app", 1).toCompletableFuture().join();
        assertThat(v4.version()).isEqualTo(4);
        assertThat(config.get("app")).contains(v4);
        assertThatThrownBy(() -> async.rollback("app", 99).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(NotFoundException.class);
    }
}
