package io.lodestar.redis;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.event.ConfigChanged;
import io.lodestar.core.event.ConfigEvent;
import io.lodestar.core.event.InstanceDeregistered;
import io.lodestar.core.event.ServiceEvent;
import io.lodestar.core.event.ServiceResynced;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.ServiceInstance;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.lodestar.redis.Clients.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Anyone allowed to publish on Lodestar's channels can forge events. A view drops the ones no Lodestar writer can
 * have published, counts them, and never lets one start a resync loop or pin a topic. Periodic reconcile and sweep
 * are off, so only the paths under test can repair anything.
 */
class ForgedEventsIT extends PrivateRedisTest {
    private static final Duration OFF = Duration.ofHours(1);
    /** Revisions no writer can publish next to a held revision; each view must drop every one. */
    private static final List<String> IMPOSSIBLE = List.of("9223372036854775807", "10000000000000000000", "1e19",
            "1.5", "\"7\"", "-1", "0", "null", "HELD+2000000", "HELD+5");

    private LodestarClient writer;
    private RedisLodestarClient reader;

    @BeforeEach
    void connect() {
        writer = clients.connect(options -> options.reconcileInterval(OFF).sweepInterval(OFF));
        reader = (RedisLodestarClient) clients.connect(options -> options.reconcileInterval(OFF)
                .sweepInterval(OFF).idleViewTimeout(Duration.ofSeconds(1)));
    }

    @Test
    void eventsWithImpossibleRevisionsAreDroppedAndStartNoResyncLoop() {
        writer.registry().register(instance("orders", "orders-1"));
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        List<String> subscriber = new CopyOnWriteArrayList<>();
        reader.discovery().getInstances("orders");
        reader.discovery().getServices();
        reader.config().subscribe("app", event -> subscriber.add(event.getClass().getSimpleName()));

        publishImpossible(keys().service("orders"), "{\"type\":\"registered\",\"id\":\"ghost\",\"instance\":"
                + "{\"host\":\"6.6.6.6\",\"port\":1,\"secure\":false,\"weight\":10000,\"status\":\"UP\",\"ttl\":0,"
                + "\"metadata\":{}}");
        publishImpossible(keys().services(), "{\"type\":\"added\",\"id\":\"ghost\"");
        publishImpossible(keys().config("app"), "{\"type\":\"removed\"");

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(reader.serviceView.rejected.sum()).isEqualTo(IMPOSSIBLE.size());
            assertThat(reader.indexView.rejected.sum()).isEqualTo(IMPOSSIBLE.size());
            assertThat(reader.views().get("config").rejected.sum()).isEqualTo(IMPOSSIBLE.size());
        });
        redis().configResetstat();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> commandsSinceReset() <= 10); // a loop sends thousands a second
        writer.registry().register(instance("orders", "orders-2"));
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactly("orders-1", "orders-2");
            assertThat(reader.discovery().getServices()).containsExactly("orders");
            assertThat(reader.config().get("app")).hasValueSatisfying(entry ->
                    assertThat(entry.content()).isEqualTo("a=2"));
            assertThat(subscriber).containsExactly("ConfigChanged");
        });
    }

    @Test
    void eventsWithABadIdOrAMalformedBodyAreDroppedAndTheRealEventStillApplies() {
        writer.registry().register(instance("orders", "orders-1"));
        reader.discovery().getInstances("orders");
        long next = revision(keys().service("orders")) + 1;

        publish(keys().service("orders").channel(), "{\"type\":\"deregistered\",\"rev\":" + next + ",\"id\":\"a b\"}");
        publish(keys().service("orders").channel(), "{\"type\":\"registered\",\"rev\":" + next + ",\"id\":\"ghost\","
                + "\"instance\":{\"host\":\"6.6.6.6\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.serviceView.rejected.sum() == 2);
        writer.registry().register(instance("orders", "orders-2"));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(reader.discovery()
                .getInstances("orders")).extracting(ServiceInstance::instanceId)
                .containsExactly("orders-1", "orders-2"));
    }

    @Test
    void aForgedEventAtTheNextRevisionIsUndoneByTheRealEventOfThatRevision() {
        writer.registry().register(instance("orders", "orders-1"));
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        reader.discovery().subscribe("orders", heard::add);
        Keys.ServiceKeys orders = keys().service("orders");
        long next = revision(orders) + 1;

        publish(orders.channel(), "{\"type\":\"registered\",\"rev\":" + next + ",\"id\":\"ghost\",\"instance\":"
                + "{\"host\":\"6.6.6.6\",\"port\":1,\"secure\":false,\"weight\":10000,\"status\":\"UP\","
                + "\"ttl\":0,\"metadata\":{}},\"digest\":\"0000\"}");
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().getInstance("orders", "ghost")
                .isPresent()); // the forgery got in: nothing a view can check tells it from a real event
        writer.registry().register(instance("orders", "orders-2")); // Redis' own event of that revision

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(reader.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactly("orders-1", "orders-2");
            assertThat(heard).last().isInstanceOf(ServiceResynced.class);
        });
    }

    @Test
    void aForgedConfigVersionIsUndoneByTheRealVersionOfThatRevision() {
        writer.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        List<ConfigEvent> heard = new CopyOnWriteArrayList<>();
        reader.config().subscribe("app", heard::add);
        long next = revision(keys().config("app")) + 1;

        publish(keys().config("app").channel(), "{\"type\":\"changed\",\"rev\":" + next + ",\"id\":\"app\","
                + "\"entry\":{\"version\":" + next + ",\"format\":\"PROPERTIES\",\"hash\":\"forged\","
                + "\"createdAt\":1,\"updatedAt\":1,\"content\":\"a=evil\"}}");
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 1); // the forgery got in
        writer.config().set("app", "a=2", ConfigFormat.PROPERTIES);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(reader.config().get("app")).hasValueSatisfying(entry ->
                    assertThat(entry.content()).isEqualTo("a=2"));
            assertThat(heard).last().isInstanceOfSatisfying(ConfigChanged.class, changed ->
                    assertThat(changed.entry().content()).isEqualTo("a=2"));
        });
    }

    @Test
    void aForgedServiceIndexChangeIsUndoneByTheRealChangeOfThatRevision() {
        writer.registry().register(instance("orders", "orders-1"));
        assertThat(reader.discovery().getServices()).containsExactly("orders");
        long next = revision(keys().services().revision()) + 1;

        publish(keys().services().channel(), "{\"type\":\"added\",\"rev\":" + next + ",\"id\":\"ghost\"}");
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.discovery().getServices().contains("ghost"));
        writer.registry().register(instance("payments", "payments-1"));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(reader.discovery().getServices())
                .containsExactly("orders", "payments"));
    }

    @Test
    void theReconcileUndoesAForgedEventWhoseRevisionRedisReachedWithoutTheViewHearingIt() {
        LodestarClient reconciling = clients.connect(options -> options.reconcileInterval(Duration.ofMillis(500)));
        writer.registry().register(instance("orders", "orders-1"));
        List<ServiceEvent> heard = new CopyOnWriteArrayList<>();
        reconciling.discovery().subscribe("orders", heard::add);
        Keys.ServiceKeys orders = keys().service("orders");
        long next = revision(orders) + 1;

        publish(orders.channel(), "{\"type\":\"deregistered\",\"rev\":" + next + ",\"id\":\"orders-1\"}");
        // Redis reaches that revision by a write whose event the view never hears (a lost message)
        redis().hincrby(orders.instances(), Keys.REVISION_FIELD, 1);
        redis().hset(orders.instances(), Keys.DIGEST_FIELD, "a-real-write");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(heard).first().as("the forgery got in").isInstanceOf(InstanceDeregistered.class);
            assertThat(heard).last().isInstanceOf(ServiceResynced.class);
            assertThat(reconciling.discovery().getInstances("orders")).extracting(ServiceInstance::instanceId)
                    .containsExactly("orders-1");
        });
    }

    @Test
    void forgedAddedConfigIdsAreNeverSubscribedWhenInvalidAndNeverPinnedWhenAbsent() {
        writer.config().set("real", "a=1", ConfigFormat.PROPERTIES);
        List<ConfigEvent> heard = new CopyOnWriteArrayList<>();
        reader.config().subscribeAll(heard::add);
        String channel = keys().configs().channel();
        long next = revision(keys().configs().revision()) + 1;
        List<String> invalid = List.of("x}:evil{", "a b", "*", "\\u0000");

        for (String id : invalid) {
            publish(channel, "{\"type\":\"added\",\"rev\":" + next + ",\"id\":\"" + id + "\"}");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> reader.views().get("config-index").rejected.sum()
                == invalid.size());
        for (int i = 0; i < 20; i++) {
            publish(channel, "{\"type\":\"added\",\"rev\":" + (next + i) + ",\"id\":\"ghost-" + i + "\"}");
        }

        assertThat(redis().pubsubShardChannels()).noneMatch(subscribed -> subscribed.contains("evil")
                || subscribed.contains("a b") || subscribed.contains("*") || subscribed.contains("\u0000"));
        SyncedView<?, ?> entries = reader.views().get("config");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            entries.cleanUp();
            assertThat(entries.api().held()).as("entries held once idle").containsExactly("real");
        });
        assertThat(heard).isEmpty();
    }

    /** Publishes an event at each impossible revision on a topic's channel; {@code body} lacks "rev" and "}". */
    @Test
    void ghostConfigIdsOfForgedAddedEventsAreReleasedAndTheIndexResyncDropsThem() {
        // given a namespace listener whose entries would stay held for the default idle timeout (10 minutes)
        writer.config().set("real", "a=1", ConfigFormat.PROPERTIES);
        RedisLodestarClient watcher = (RedisLodestarClient) clients.connect(options -> options
                .reconcileInterval(Duration.ofSeconds(1)).sweepInterval(OFF));
        List<ConfigEvent> heard = new CopyOnWriteArrayList<>();
        watcher.config().subscribeAll(heard::add);
        String channel = keys().configs().channel();
        long next = revision(keys().configs().revision()) + 1;

        // when 5,000 ids Redis does not hold are announced, with consecutive revisions as a writer would
        for (int i = 0; i < 5_000; i++) {
            publish(channel, "{\"type\":\"added\",\"rev\":" + (next + i) + ",\"id\":\"ghost-" + i + "\"}");
        }

        // then their entries and subscriptions are released long before they would be idle, and the index's resync
        // (the reconcile finds Redis behind the forged revisions) drops them from the index
        SyncedView<?, ?> entries = watcher.views().get("config");
        SyncedView<?, ?> index = watcher.views().get("config-index");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(entries.api().held()).as("entries held").containsExactly("real");
            assertThat(index.api().peekHeld().get(IndexSource.TOPIC)).as("the index").isEqualTo(Set.of("real"));
            assertThat(redis().pubsubShardChannels()).as("shard subscriptions")
                    .noneMatch(subscribed -> subscribed.contains("ghost-"));
        });
        assertThat(heard).isEmpty();
    }

    @Test
    void aGhostConfigIdWhoseGrayReleaseCannotBeLoadedIsReleasedWithItsGraySubscription() {
        // given a namespace listener (no identity: it starts from an entry without waiting for the gray release),
        // and a config Redis does not hold whose gray release key another program wrote with the wrong type, so
        // the gray view's load fails (after the entry's load found nothing, or not: whichever ends first)
        RedisLodestarClient watcher = (RedisLodestarClient) clients.connect(options -> options
                .reconcileInterval(OFF).sweepInterval(OFF));
        List<ConfigEvent> heard = new CopyOnWriteArrayList<>();
        watcher.config().subscribeAll(heard::add);
        redis().hset(keys().config("ghost").gray(), "not", "a release");
        redis().configResetstat();

        // when the index announces it
        publish(keys().configs().channel(), "{\"type\":\"added\",\"rev\":"
                + (revision(keys().configs().revision()) + 1) + ",\"id\":\"ghost\"}");

        // then once the gray release's load failed, the id is released whole: its entry, its gray release, and the
        // shard subscriptions of both, long before the idle timeout (10 minutes)
        await().atMost(Duration.ofSeconds(10)).until(() -> redis().info("errorstats").contains("WRONGTYPE"));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(watcher.views().get("config").api().held()).as("entries held").isEmpty();
            assertThat(redis().pubsubShardChannels()).as("shard subscriptions")
                    .noneMatch(subscribed -> subscribed.contains("ghost"));
        });
        assertThat(heard).isEmpty();
    }

    private void publishImpossible(Object topicKeys, String body) {
        long held;
        String channel;
        if (topicKeys instanceof Keys.ServiceKeys service) {
            held = revision(service);
            channel = service.channel();
        } else if (topicKeys instanceof Keys.IndexKeys index) {
            held = revision(index.revision());
            channel = index.channel();
        } else {
            Keys.ConfigKeys config = (Keys.ConfigKeys) topicKeys;
            held = revision(config);
            channel = config.channel();
        }
        for (String revision : IMPOSSIBLE) {
            String rev = revision.startsWith("HELD+") ? Long.toString(held + Long.parseLong(revision.substring(5)))
                    : revision;
            publish(channel, body + ",\"rev\":" + rev + "}");
        }
    }

    private void publish(String channel, String message) {
        redis().spublish(channel, message);
    }

    private long revision(String key) {
        String value = redis().get(key);
        return value == null ? 0 : Long.parseLong(value);
    }

    /** A service's revision: a field of its instances hash (see Keys). */
    private long revision(Keys.ServiceKeys service) {
        String value = redis().hget(service.instances(), Keys.REVISION_FIELD);
        return value == null ? 0 : Long.parseLong(value);
    }

    private long revision(Keys.ConfigKeys config) {
        String value = redis().hget(config.current(), Keys.REVISION_FIELD);
        return value == null ? 0 : Long.parseLong(value);
    }

    /** Commands Redis served since CONFIG RESETSTAT, except this test's own INFO. */
    private long commandsSinceReset() {
        // not the test's own INFO, nor the clients' heartbeat PINGs (a steady few a second, not a loop)
        return CommandStats.calls(redis()).entrySet().stream()
                .filter(command -> !command.getKey().equals("info") && !command.getKey().equals("ping"))
                .mapToLong(Map.Entry::getValue).sum();
    }
}
