package io.lodestar.redis;

import io.lodestar.core.InvalidArgumentException;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.model.AppliedConfig;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.GrayRule;
import io.lodestar.core.model.InstanceIdentity;
import io.lodestar.test.StallingRelay;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Who runs what ({@code ConfigService.applied}) against real Redis: every client that applied a config is listed
 * with its version while it lives, and not after. The test clients renew every 500 ms (their sweep interval), so
 * a record lives 1.5 s unless renewed.
 */
class AppliedConfigIT {
    private static final Duration TTL = Duration.ofMillis(500L * AppliedRecords.TTL_INTERVALS);

    private final Clients clients = new Clients(TestRedis.standalone().uri());

    @AfterEach
    void close() {
        clients.close();
    }

    private static List<Long> versions(List<AppliedConfig> applied) {
        return applied.stream().map(AppliedConfig::version).toList();
    }

    /** The records of "app" once there are {@code count} of them (a client records without holding up its read). */
    private static List<AppliedConfig> listed(LodestarClient operator, int count) {
        return await().atMost(Duration.ofSeconds(2)).until(() -> operator.config().applied("app"),
                applied -> applied.size() == count);
    }

    @Test
    void aClientThatReadsAConfigIsListedWithTheVersionItApplied() {
        // given a config and a client that reads it through its view
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient app = clients.connect(options -> options.clientName("orders-app"));

        app.config().get("app");

        // then the operator (who holds nothing) sees exactly that client, at version 1 of the main variant, as soon
        // as the client's record (sent as its view took the config, not waited for) is in
        AppliedConfig record = listed(operator, 1).get(0);
        assertThat(record.version()).isEqualTo(1);
        assertThat(record.variant()).isEqualTo(AppliedConfig.MAIN);
        assertThat(record.clientName()).isEqualTo("orders-app");
        assertThat(record.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(record.expiresAt()).isAfter(record.appliedAt());
    }

    @Test
    void aClientInAGraySetIsListedWithTheGrayVariantAndWithMainAgainAfterAnAbort() {
        // given a config, and two clients that read it: one in zone eu-1, one in us-1
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient inGray = clients.connect(options -> options.clientName("eu-app")
                .identity(new InstanceIdentity("app-1", Map.of("zone", "eu-1"))));
        LodestarClient notInGray = clients.connect(options -> options.clientName("us-app")
                .identity(new InstanceIdentity("app-2", Map.of("zone", "us-1"))));
        inGray.config().get("app");
        notInGray.config().get("app");

        // when a gray release starts for zone eu-1
        operator.config().startGray("app", "a=2", ConfigFormat.PROPERTIES, GrayRule.metadata("zone", "eu-1"));

        // then the eu client is listed with the gray variant and the other with main, both at version 1
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(operator.config().applied("app"))
                .extracting(AppliedConfig::clientName, AppliedConfig::version, AppliedConfig::variant)
                .containsExactlyInAnyOrder(tuple("eu-app", 1L, AppliedConfig.GRAY),
                        tuple("us-app", 1L, AppliedConfig.MAIN)));

        // and once the release is aborted, both run main
        operator.config().abortGray("app");
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(operator.config().applied("app"))
                .extracting(AppliedConfig::clientName, AppliedConfig::variant)
                .containsExactlyInAnyOrder(tuple("eu-app", AppliedConfig.MAIN), tuple("us-app", AppliedConfig.MAIN)));
    }

    @Test
    void aToolThatDoesNotRecordAppliedVersionsIsNotListedWhileAnApplicationIs() {
        // given a config, and a tool (a console, the CLI) that reads and watches it without recording
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient tool = clients.connect(options -> options.clientName("tool").recordAppliedConfigs(false));
        tool.config().get("app");
        tool.config().subscribe("app", event -> { });
        tool.config().subscribeAll(event -> { });

        // when an application reads it after the tool
        clients.connect(options -> options.clientName("orders-app")).config().get("app");

        // then only the application is listed, also after a renewal of the tool's view
        assertThat(listed(operator, 1)).extracting(AppliedConfig::clientName).containsExactly("orders-app");
        operator.config().set("app", "a=2", ConfigFormat.PROPERTIES);
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(operator.config().applied("app"))
                .extracting(AppliedConfig::version).containsExactly(2L));
        assertThat(tool.config().get("app").orElseThrow().version()).isEqualTo(2);
        await().during(TTL.dividedBy(2)).atMost(TTL).untilAsserted(() -> assertThat(operator.config().applied("app"))
                .extracting(AppliedConfig::clientName).containsExactly("orders-app"));
    }

    @Test
    void aDirectReadAppliesNothing() {
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);

        clients.connect().directConfig().get("app");

        assertThat(operator.config().applied("app")).isEmpty();
    }

    @Test
    void aNewVersionIsRecordedAsTheClientTakesIt() {
        // given a client running version 1
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient app = clients.connect();
        app.config().get("app");

        // when version 2 is written
        operator.config().set("app", "a=2", ConfigFormat.PROPERTIES);

        // then the client reports version 2, well before a renewal would have sent it
        await().atMost(Duration.ofMillis(400)).untilAsserted(() ->
                assertThat(versions(operator.config().applied("app"))).containsExactly(2L));
    }

    @Test
    void aLiveClientStaysListedPastItsTtlAndKeepsWhenItApplied() {
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient app = clients.connect();
        app.config().get("app");
        AppliedConfig first = listed(operator, 1).get(0);

        // for twice its time to live, the renewals keep it, with the time it applied version 1
        await().during(TTL.multipliedBy(2)).atMost(TTL.multipliedBy(3)).untilAsserted(() ->
                assertThat(operator.config().applied("app")).singleElement()
                        .satisfies(record -> assertThat(record.appliedAt()).isEqualTo(first.appliedAt())));
    }

    @Test
    void aClosedClientIsRemovedAtOnce() {
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient app = clients.connect();
        app.config().get("app");
        listed(operator, 1);

        app.close();

        assertThat(operator.config().applied("app")).isEmpty();
    }

    @Test
    void aClientCutOffFromRedisDisappearsWithinItsTtl() {
        // given two clients running the config, one of them through a link that is about to break
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        clients.connect(options -> options.clientName("survivor")).config().get("app");
        try (StallingRelay link = StallingRelay.to(TestRedis.standalone())) {
            LodestarClient doomed = clients.connect(link.uri(), options -> options.clientName("doomed"));
            doomed.config().get("app");
            assertThat(listed(operator, 2)).extracting(AppliedConfig::clientName)
                    .containsExactlyInAnyOrder("survivor", "doomed");

            // when its connections drop and it cannot come back (nor clean up: like a killed process)
            link.close();

            // then it leaves the list within its time to live (and one renewal interval of slack); the other stays
            await().atMost(TTL.plusMillis(500)).untilAsserted(() ->
                    assertThat(operator.config().applied("app")).extracting(AppliedConfig::clientName)
                            .containsExactly("survivor"));
        }
    }

    @Test
    void aClientThatNoLongerHoldsTheConfigIsRemoved() {
        // given a client whose view drops configs nobody read for a second
        LodestarClient operator = clients.connect();
        operator.config().set("app", "a=1", ConfigFormat.PROPERTIES);
        LodestarClient app = clients.connect(options -> options.idleViewTimeout(Duration.ofSeconds(1)));
        app.config().get("app");
        listed(operator, 1);

        // then once the view dropped it, a renewal removes the record; the client lives on
        await().atMost(Duration.ofSeconds(4)).untilAsserted(() ->
                assertThat(operator.config().applied("app")).isEmpty());
        assertThat(((RedisLodestarClient) app).configService().entriesView().api().held()).isEmpty();
    }

    @Test
    void aBadIdIsRefusedNamingIt() {
        assertThatThrownBy(() -> clients.connect().config().applied("a:b"))
                .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("configId")
                .hasMessageContaining("a:b");
    }

    @Test
    void onAClusterTheRecordsLiveInTheConfigsSlot() {
        try (Clients cluster = new Clients(TestRedis.cluster().uri())) {
            LodestarClient operator = cluster.connect();
            for (String id : List.of("a", "b", "c", "d")) { // spread over the masters
                operator.config().set(id, "x", ConfigFormat.TEXT);
            }
            LodestarClient app = cluster.connect();
            List.of("a", "b", "c", "d").forEach(app.config()::get);

            for (String id : List.of("a", "b", "c", "d")) {
                await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
                        assertThat(versions(operator.config().applied(id))).as(id).containsExactly(1L));
            }
        }
    }
}
