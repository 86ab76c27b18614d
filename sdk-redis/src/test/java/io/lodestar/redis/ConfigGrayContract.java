package io.lodestar.redis;

import io.lodestar.core.ConfigService;
import io.lodestar.core.ConflictException;
import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.NotFoundException;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.model.ConfigAudit;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRelease;
import io.lodestar.core.model.GrayRule;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Gray releases and the audit trail, on any deployment; subclasses say which Redis. */
abstract class ConfigGrayContract extends NamespaceTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final GrayRule EU_1 = GrayRule.metadata("zone", "eu-1");

    private LodestarClient in(String zone) {
        return clients.connect(options -> options.identity(new InstanceIdentity("app-" + zone, Map.of("zone", zone))));
    }

    private static String content(ConfigService config) {
        return config.get("app").map(ConfigEntry::content).orElse(null);
    }

    private static List<String> contents(List<ConfigEvent> events) {
        return events.stream().map(event -> ((ConfigChanged) event).entry().content()).toList();
    }

    @Test
    void aLabelRuleGivesTheGrayContentToExactlyTheLabelledInstances() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient eu1 = in("eu-1");
        LodestarClient eu2 = in("eu-2");
        assertThat(content(eu1.config())).isEqualTo("a=1");

        GrayRelease release = writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);

        assertThat(release.baseVersion()).isEqualTo(1);
        assertThat(writer.config().gray("app")).contains(release);
        await().atMost(WAIT).untilAsserted(() -> assertThat(content(eu1.config())).isEqualTo("a=gray"));
        assertThat(content(eu2.config())).isEqualTo("a=1");
        assertThat(content(writer.config())).as("a client without identity is in no gray set").isEqualTo("a=1");
        assertThat(eu1.config().get("app").orElseThrow().version()).as("beside version 1").isEqualTo(1);
    }

    @Test
    void theFirstRegisteredInstanceIsTheClientsIdentity() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);
        LodestarClient app = clients.connect();
        List<ConfigEvent> events = new CopyOnWriteArrayList<>();
        app.config().subscribe("app", events::add);
        assertThat(content(app.config())).isEqualTo("a=1");

        app.registry().register(ServiceInstance.builder("orders", "orders-1").host("10.0.0.1").port(8080)
                .metadata(Map.of("zone", "eu-1")).build());

        assertThat(content(app.config())).isEqualTo("a=gray");
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(events)).containsExactly("a=gray"));
    }

    @Test
    void startAndAbortGiveListenersInTheGraySetOneChangeEachAndOthersNone() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        List<ConfigEvent> inside = new CopyOnWriteArrayList<>();
        List<ConfigEvent> outside = new CopyOnWriteArrayList<>();
        in("eu-1").config().subscribe("app", inside::add);
        in("eu-2").config().subscribe("app", outside::add);

        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(inside)).containsExactly("a=gray"));
        writer.config().updateGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1.withPercent(100));
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        writer.config().abortGray("app");

        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(inside)).containsExactly("a=gray", "a=2"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(outside)).containsExactly("a=2"));
        assertThat(writer.config().gray("app")).isEmpty();
    }

    @Test
    void promoteGivesListenersOutsideTheGraySetOneChangeAndThoseInsideNone() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        List<ConfigEvent> inside = new CopyOnWriteArrayList<>();
        List<ConfigEvent> outside = new CopyOnWriteArrayList<>();
        LodestarClient eu1 = in("eu-1");
        eu1.config().subscribe("app", inside::add);
        in("eu-2").config().subscribe("app", outside::add);
        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(inside)).containsExactly("a=gray"));

        ConfigEntry promoted = writer.config().promoteGray("app", 1);

        assertThat(promoted.version()).isEqualTo(2);
        assertThat(promoted.content()).isEqualTo("a=gray");
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(outside)).containsExactly("a=gray"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(eu1.config().gray("app")).isEmpty());
        writer.config().set("app", "a=3", ConfigFormat.PROPERTIES); // a later version reaches both: nothing in between
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(outside)).containsExactly("a=gray", "a=3"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(inside)).containsExactly("a=gray", "a=3"));
        assertThat(writer.config().history("app")).extracting(ConfigEntry::content)
                .containsExactly("a=3", "a=gray", "a=1");
    }

    @Test
    void namespaceListenersHearTheEffectiveContentOneChangeOnEnteringAndOneOnLeavingTheGraySet() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        List<ConfigEvent> inside = new CopyOnWriteArrayList<>();
        List<ConfigEvent> outside = new CopyOnWriteArrayList<>();
        in("eu-1").config().subscribeAll(inside::add);
        in("eu-2").config().subscribeAll(outside::add);

        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(inside)).containsExactly("a=gray"));
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES); // inside keeps the gray content: nothing
        writer.config().abortGray("app");

        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(inside)).containsExactly("a=gray", "a=2"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(outside)).containsExactly("a=2"));
        assertThat(inside).extracting(ConfigEvent::version).containsExactly(1L, 2L);
    }

    @Test
    void aNamespaceListenerInTheGraySetHearsNothingWhileItsContentStaysGrayAndStillHearsNewConfigs() {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);
        List<ConfigEvent> inside = new CopyOnWriteArrayList<>();
        in("eu-1").config().subscribeAll(inside::add);

        writer.config().set("other", "b=1", ConfigFormat.PROPERTIES);
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES); // inside keeps the gray content: nothing
        writer.config().promoteGray("app", -1); // the gray content stays: nothing either

        await().atMost(WAIT).untilAsserted(() -> assertThat(inside).extracting(ConfigEvent::configId)
                .contains("other"));
        writer.config().set("app", "a=4", ConfigFormat.PROPERTIES);
        await().atMost(WAIT).untilAsserted(() -> assertThat(contents(inside)).containsExactly("b=1", "a=4"));
    }

    @Test
    void ofCompareAndSetWritersAndAPromoteExpectingTheSameVersionExactlyOneWins() throws Exception {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, GrayRule.percent(10));
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> attempts = new ArrayList<>();
        try {
            for (int i = 0; i < writers; i++) {
                String value = "a=cas-" + i;
                attempts.add(pool.submit(won(go, () -> writer.config().compareAndSet("app", value,
                        ConfigFormat.PROPERTIES, 1))));
            }
            Future<Boolean> promote = pool.submit(won(go, () -> writer.config().promoteGray("app", 1)));
            attempts.add(promote);
            go.countDown();
            long winners = 0;
            for (Future<Boolean> attempt : attempts) {
                winners += attempt.get(WAIT.toMillis(), TimeUnit.MILLISECONDS) ? 1 : 0;
            }

            assertThat(winners).isEqualTo(1);
            assertThat(writer.config().history("app")).hasSize(2);
            assertThat(writer.config().gray("app").isEmpty()).as("the release ended only if the promote won")
                    .isEqualTo(promote.get());
        } finally {
            pool.shutdownNow();
        }
    }

    private static Callable<Boolean> won(CountDownLatch go, Callable<?> write) {
        return () -> {
            go.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            try {
                write.call();
                return true;
            } catch (ConflictException lost) {
                return false;
            }
        };
    }

    @Test
    void anAbortRacingAnUpdateLeavesEitherNoReleaseOrTheUpdatedOneNeverHalf() throws Exception {
        LodestarClient writer = clients.connect();
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        writer.config().startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> abort = pool.submit(() -> writer.config().abortGray("app"));
            Future<?> update = pool.submit(() -> {
                try {
                    writer.config().updateGray("app", "a=gray-2", ConfigFormat.PROPERTIES, EU_1.withPercent(50));
                } catch (NotFoundException aborted) {
                    // the abort came first
                }
            });
            abort.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            update.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            pool.shutdownNow();
        }

        assertThat(writer.config().gray("app")).isEmpty();
        assertThat(writer.config().get("app").orElseThrow().version()).as("the config is untouched").isEqualTo(1);
    }

    @Test
    void aGrayReleaseNeedsAnExistingConfigAndOnlyOneRunsAtATime() {
        ConfigService config = clients.connect().config();

        assertThatThrownBy(() -> config.startGray("app", "a=1", ConfigFormat.PROPERTIES, EU_1))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("Config 'app' does not exist");
        config.set("app", "a=1", ConfigFormat.PROPERTIES);
        config.startGray("app", "a=2", ConfigFormat.PROPERTIES, EU_1);
        assertThatThrownBy(() -> config.startGray("app", "a=3", ConfigFormat.PROPERTIES, EU_1))
                .isInstanceOf(ConflictException.class).hasMessageContaining("already has a gray release")
                .hasMessageContaining("rule zone=eu-1");
        assertThatThrownBy(() -> config.promoteGray("other", -1)).isInstanceOf(NotFoundException.class)
                .hasMessageContaining("Config 'other' has no gray release");
        assertThatThrownBy(() -> config.startGray("app", "a=3", ConfigFormat.PROPERTIES, null))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("rule must be non-null");
    }

    @Test
    void theAsyncTwinsDoTheSameAndFailTheStageWithTheSameExceptions() throws Exception {
        ConfigService config = clients.connect().config();
        config.set("app", "a=1", ConfigFormat.PROPERTIES);
        long timeout = WAIT.toMillis();

        GrayRelease started = config.async().startGray("app", "a=2", ConfigFormat.PROPERTIES, EU_1)
                .toCompletableFuture().get(timeout, TimeUnit.MILLISECONDS);
        GrayRelease updated = config.async().updateGray("app", "a=3", ConfigFormat.PROPERTIES, EU_1)
                .toCompletableFuture().get(timeout, TimeUnit.MILLISECONDS);
        ConfigEntry promoted = config.async().promoteGray("app", 1).toCompletableFuture()
                .get(timeout, TimeUnit.MILLISECONDS);

        assertThat(updated.revision()).isEqualTo(started.revision() + 1);
        assertThat(promoted.content()).isEqualTo("a=3");
        assertThat(config.async().gray("app").toCompletableFuture().get(timeout, TimeUnit.MILLISECONDS)).isEmpty();
        assertThat(config.async().abortGray("app").toCompletableFuture().get(timeout, TimeUnit.MILLISECONDS))
                .isFalse();
        assertThat(config.async().log("app", 1).toCompletableFuture().get(timeout, TimeUnit.MILLISECONDS))
                .extracting(ConfigAudit::operation).containsExactly("gray-promote");
        assertThat(config.async().promoteGray("app", -1)).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(NotFoundException.class);
    }

    @Test
    void aLogLimitOutsideItsRangeIsRefusedNamingIt() {
        ConfigService config = clients.connect().config();

        assertThatThrownBy(() -> config.log("app", 0)).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("limit must be between 1 and 10000, but was 0");
    }

    @Test
    void everyWriteLeavesAnAuditRecordWithItsClientHashAndPreviousVersion() {
        ConfigService config = clients.connect(options -> options.clientName("deployer")).config();
        ConfigEntry first = config.set("app", "a=1", ConfigFormat.PROPERTIES);
        ConfigEntry second = config.compareAndSet("app", "a=2", ConfigFormat.PROPERTIES, 1);
        config.rollback("app", 1);
        GrayRelease gray = config.startGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1);
        config.updateGray("app", "a=gray", ConfigFormat.PROPERTIES, EU_1.withPercent(50));
        config.promoteGray("app", -1);
        config.startGray("app", "a=5", ConfigFormat.PROPERTIES, EU_1);
        config.abortGray("app");
        config.remove("app");

        List<ConfigAudit> log = config.log("app", 100);

        assertThat(log).extracting(ConfigAudit::operation).containsExactly("remove", "gray-abort", "gray-start",
                "gray-promote", "gray-update", "gray-start", "rollback", "cas", "set");
        assertThat(log).extracting(ConfigAudit::version).containsExactly(5L, 4L, 4L, 4L, 3L, 3L, 3L, 2L, 1L);
        assertThat(log).extracting(ConfigAudit::previousVersion)
                .containsExactly(4L, 4L, 4L, 3L, 3L, 3L, 2L, 1L, 0L);
        assertThat(log).allSatisfy(record -> {
            assertThat(record.client()).isEqualTo("deployer");
            assertThat(record.host()).isNotBlank();
        });
        assertThat(log.get(8).contentHash()).isEqualTo(first.contentHash());
        assertThat(log.get(7).contentHash()).isEqualTo(second.contentHash());
        assertThat(log.get(5).contentHash()).isEqualTo(gray.contentHash());
        assertThat(config.log("app", 2)).extracting(ConfigAudit::operation).containsExactly("remove", "gray-abort");
    }

    @Test
    void theAuditLogStaysBounded() {
        ConfigService config = clients.connect().config();
        for (int i = 0; i < 1300; i++) {
            config.set("app", "a=" + i, ConfigFormat.PROPERTIES);
        }

        assertThat(config.log("app", 10_000)).hasSizeBetween(1000, 1200);
    }
}
