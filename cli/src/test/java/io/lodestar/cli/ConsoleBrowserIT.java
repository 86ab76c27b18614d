package io.lodestar.cli;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.StartupMode;
import io.lodestar.core.model.ConfigEntry;
import io.lodestar.core.model.ConfigFormat;
import io.lodestar.core.model.InstanceStatus;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.chrome.ChromeDriver;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console in a real headless Chromium: what an operator sees and does, against the real jar and a real Redis.
 * Skipped, with a message saying what to install, where Chromium or chromedriver cannot be found.
 */
class ConsoleBrowserIT {
    private static final Duration UI = Duration.ofSeconds(20);
    private static final String TOKEN = "test-token-" + UUID.randomUUID();
    private static final String READ_TOKEN = "read-token-" + UUID.randomUUID();

    /**
     * One browser for the class: starting Chromium costs about as much as a test. Each test still opens its own
     * console in a new tab (the previous test's tab is closed), so nothing a page keeps carries over to the
     * next test: not its state, not its token (kept per tab, in sessionStorage).
     */
    private static ChromeDriver chrome;
    private final String namespace = "console-" + UUID.randomUUID().toString().substring(0, 8);
    private final String other = namespace + "-b";
    private RedisServer redis;
    private LodestarClient sdk;
    private ConsoleProcess console;
    @TempDir
    Path dir;

    @BeforeAll
    static void openBrowser() {
        chrome = Browser.start();
    }

    @AfterAll
    static void closeBrowser() {
        if (chrome != null) {
            chrome.quit();
        }
    }

    @BeforeEach
    void openNewTab() {
        String previous = chrome.getWindowHandle();
        String tab = chrome.switchTo().newWindow(WindowType.TAB).getWindowHandle();
        chrome.switchTo().window(previous).close();
        chrome.switchTo().window(tab);
    }

    @AfterEach
    void closeAll() {
        if (console != null) {
            console.close();
        }
        if (sdk != null) {
            sdk.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private void startConsole(RedisServer server) {
        connect(server);
        console = new ConsoleProcess(Map.of("LODESTAR_CONSOLE_READ_TOKEN", READ_TOKEN), server.uri(), namespace,
                "--token", TOKEN);
    }

    private void connect(RedisServer server) {
        redis = server;
        sdk = RedisLodestar.create(LodestarOptions.builder(server.uri()).namespace(namespace)
                .startupMode(StartupMode.OFFLINE).build());
    }

    /**
     * A console whose users are alice (admin), bob (write) and rita (read) in the test's namespace, and olga (read
     * there, admin in the namespace {@link #other}).
     */
    private void startConsoleWithUsers(String... extra) throws IOException {
        connect(TestRedis.standalone());
        Path users = TestUsers.file(dir, """
                users:
                  alice: {token: %1$s-alice, roles: {%2$s: admin}}
                  bob: {token: %1$s-bob, roles: {%2$s: write}}
                  rita: {token: %1$s-rita, roles: {%2$s: read}}
                  olga: {token: %1$s-olga, roles: {%2$s: read, %3$s: admin}}
                """.formatted(TOKEN, namespace, other));
        List<String> args = new ArrayList<>(List.of("--users", users.toString()));
        args.addAll(List.of(extra));
        console = new ConsoleProcess(redis.uri(), namespace, args.toArray(String[]::new));
    }

    /** Opens the console and gives it a token as an operator does: typed into the field, then Enter. */
    private void openWithToken(String token) {
        chrome.get(console.url());
        awaitElement("#token").sendKeys(token, Keys.ENTER);
    }

    private void register(String id, int port, String zone) {
        sdk.registry().register(ServiceInstance.builder("orders", id).host("10.0.0.7").port(port).weight(100)
                .metadata("zone", zone).metadata("version", "2.3").ttl(Duration.ofSeconds(30)).build());
    }

    private WebElement awaitElement(String css) {
        return await(css).atMost(UI).ignoreExceptions()
                .until(() -> chrome.findElements(By.cssSelector(css)).stream().findFirst().orElse(null),
                        element -> element != null && element.isDisplayed());
    }

    @Test
    void anInstanceRegisteredByAnotherClientAppearsWithoutAReload() {
        startConsole(TestRedis.standalone());
        register("orders-1", 8080, "eu-1");
        openWithToken(READ_TOKEN);
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances tr[data-instance='orders-1']");
        chrome.executeScript("window.notReloaded = true;");

        register("orders-2", 8081, "eu-2");

        WebElement row = awaitElement("#instances tr[data-instance='orders-2']");
        assertThat(row.getText()).contains("10.0.0.7:8081", "eu-2", "version=2.3").containsPattern("\\b(2\\d|30)s\\b");
        assertThat(chrome.executeScript("return window.notReloaded === true")).isEqualTo(true);
        await("the service's instance count").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.cssSelector("#services tr[data-service='orders']")).getText())
                .startsWith("orders 2 2"));
    }

    @Test
    void theTimeLeftOfAnInstanceFollowsItsDeadlineInRedisWhichNoEventAnnounces() {
        startConsole(TestRedis.standalone());
        register("orders-1", 8080, "eu-1");
        openWithToken(READ_TOKEN);
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances tr[data-instance='orders-1']");

        // a renewal by another program moves the deadline two hours ahead: Redis changes, no event is published
        try (RedisClient raw = RedisClient.create(redis.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            List<String> deadlines = connection.sync().keys("lodestar:{" + namespace + ":*orders:deadlines");
            assertThat(deadlines).as("the service's deadlines key (see docs/redis.md)").hasSize(1);
            connection.sync().zadd(deadlines.get(0), System.currentTimeMillis() + Duration.ofHours(2).toMillis(),
                    "orders-1");
        }

        await("TTL left read again").atMost(UI).untilAsserted(() -> assertThat(chrome.findElement(
                By.cssSelector("td[data-ttl-left='orders-1']")).getText()).matches("2h00m|1h59m"));
    }

    @Test
    void aConfigIsRolledBackThroughThePage() throws IOException {
        startConsoleWithUsers();
        register("orders-1", 8080, "eu-1");
        register("orders-2", 8081, "eu-2");
        sdk.registry().register(ServiceInstance.builder("orders", "orders-3").host("10.0.1.9").port(8080).weight(50)
                .status(InstanceStatus.OUT_OF_SERVICE).metadata("zone", "eu-2").metadata("canary", "true")
                .ttl(Duration.ofSeconds(15)).build());
        sdk.registry().register(ServiceInstance.builder("billing", "billing-1").host("10.0.2.4").port(9090)
                .metadata("zone", "eu-1").build());
        sdk.config().set("orders/limits", "max-requests: 100\ntimeout: 2s\n", ConfigFormat.YAML);
        sdk.config().set("orders/limits", "max-requests: 5\ntimeout: 2s\n", ConfigFormat.YAML);
        sdk.config().set("billing/rates", "{\"vat\": 0.2}", ConfigFormat.JSON);
        openWithToken(TOKEN + "-alice");
        assertThat(awaitElement("#whoami").getText()).isEqualTo("alice · admin");
        assertThat(chrome.findElement(By.id("mode")).isDisplayed()).as("no read-only pill").isFalse();
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#configs tr[data-config='orders/limits']").click();
        awaitElement("#history button[data-diff='1']").click();
        assertThat(awaitElement("#diff").getText()).contains("- max-requests: 100", "+ max-requests: 5");

        awaitElement("#history button[data-rollback='1']").click();
        awaitElement("#confirm-yes").click();

        await("the rollback in Redis").atMost(UI).untilAsserted(() -> {
            ConfigEntry current = sdk.config().get("orders/limits").orElseThrow();
            assertThat(current.version()).isEqualTo(3);
            assertThat(current.content()).isEqualTo("max-requests: 100\ntimeout: 2s\n");
        });
        await("the page's version").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("config-version")).getText()).isEqualTo("version 3"));
        await("the audit log").atMost(UI).untilAsserted(() -> {
            assertThat(console.output()).contains("AUDIT who=alice@127.0.0.1 action=config.rollback"
                    + " target=orders/limits done");
            assertThat(chrome.findElement(By.id("audit")).getText()).contains("alice", "config.rollback");
        });
        screenshot();
    }

    @Test
    void aConfigWriteByAnotherClientAppearsInTheConfigChangesAndTheConfigsOwnTrail() {
        startConsole(TestRedis.standalone());
        sdk.config().set("orders/limits", "max-requests: 100\n", ConfigFormat.YAML);
        openWithToken(READ_TOKEN);
        awaitElement("#changes li[data-change='orders/limits@1']");

        sdk.config().set("orders/limits", "max-requests: 5\n", ConfigFormat.YAML);

        assertThat(awaitElement("#changes li[data-change='orders/limits@2']").getText())
                .contains("set", "orders/limits version 2", "lodestar@");
        awaitElement("#configs tr[data-config='orders/limits']").click();
        assertThat(awaitElement("#config-log tr[data-version='2']").getText()).contains("set", "1 → 2", "lodestar");
    }

    @Test
    void withoutATokenThePageShowsNothingAndAsksForOne() {
        startConsole(TestRedis.standalone());
        sdk.config().set("orders/limits", "secret: 42", ConfigFormat.YAML);
        register("orders-1", 8080, "eu-1");

        chrome.get(console.url());

        assertThat(awaitElement("#message").getText()).contains("token");
        await("the stream's state").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("live")).getText()).isEqualTo("needs the token"));
        assertThat(chrome.findElements(By.cssSelector("#configs tr[data-config]"))).isEmpty();
        assertThat(chrome.findElements(By.cssSelector("#services tr[data-service]"))).isEmpty();

        chrome.findElement(By.id("token")).sendKeys(READ_TOKEN, Keys.ENTER);

        awaitElement("#configs tr[data-config='orders/limits']");
        awaitElement("#services tr[data-service='orders']");
        assertThat(chrome.findElement(By.id("live")).getText()).isEqualTo("live");
    }

    @Test
    void aReaderIsOfferedNothingThatChanges() throws IOException {
        startConsoleWithUsers();
        register("orders-1", 8080, "eu-1");
        sdk.config().set("orders/limits", "good", ConfigFormat.TEXT);
        sdk.config().set("orders/limits", "bad", ConfigFormat.TEXT);
        openWithToken(TOKEN + "-rita");
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances tr[data-instance='orders-1']");
        awaitElement("#configs tr[data-config='orders/limits']").click();

        awaitElement("#history button[data-diff='1']");

        assertThat(chrome.findElement(By.id("whoami")).getText()).isEqualTo("rita · read");
        assertThat(chrome.findElements(By.cssSelector("#instances button"))).isEmpty();
        assertThat(chrome.findElements(By.cssSelector("#history button[data-rollback]"))).isEmpty();
        assertThat(chrome.findElement(By.id("config-new")).isDisplayed()).isFalse();
        assertThat(chrome.findElement(By.id("config-save")).isDisplayed()).isFalse();
        assertThat(chrome.findElement(By.id("config-delete")).isDisplayed()).isFalse();
    }

    @Test
    void aWriterChangesButIsOfferedNoRemoval() throws IOException {
        startConsoleWithUsers();
        register("orders-1", 8080, "eu-1");
        sdk.config().set("orders/limits", "good", ConfigFormat.TEXT);
        sdk.config().set("orders/limits", "bad", ConfigFormat.TEXT);
        openWithToken(TOKEN + "-bob");
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances button[data-metadata='orders-1']");
        awaitElement("#configs tr[data-config='orders/limits']").click();

        awaitElement("#history button[data-rollback='1']");

        assertThat(chrome.findElement(By.id("whoami")).getText()).isEqualTo("bob · write");
        assertThat(chrome.findElements(By.cssSelector("#instances button[data-evict]"))).isEmpty();
        assertThat(chrome.findElement(By.id("config-delete")).isDisplayed()).isFalse();
        assertThat(chrome.findElement(By.id("config-new")).isDisplayed()).isTrue();
    }

    @Test
    void aConfigIsCreatedThroughThePage() throws IOException {
        startConsoleWithUsers();
        openWithToken(TOKEN + "-bob");
        awaitElement("#config-new").click();

        awaitElement("#create-id").sendKeys("orders/new");
        chrome.findElement(By.cssSelector("#create-format option[value='PROPERTIES']")).click();
        chrome.findElement(By.id("create-content")).sendKeys("max-requests=10");
        chrome.findElement(By.id("create-yes")).click();

        // absent until the page's request is done: an assertion, so Awaitility polls again (orElseThrow's
        // NoSuchElementException ended the wait on the first poll that came before the request)
        await("the config in Redis").atMost(UI).untilAsserted(() -> assertThat(sdk.config().get("orders/new"))
                .hasValueSatisfying(created -> {
                    assertThat(created.content()).isEqualTo("max-requests=10");
                    assertThat(created.format()).isEqualTo(ConfigFormat.PROPERTIES);
                }));
        awaitElement("#configs tr[data-config='orders/new']");
        assertThat(awaitElement("#config-version").getText()).isEqualTo("version 1");
        await("the audit log").atMost(UI).untilAsserted(() -> assertThat(console.output())
                .contains("AUDIT who=bob@127.0.0.1 action=config.set target=orders/new done"));
    }

    @Test
    void creatingAConfigUnderATakenIdChangesNothing() throws IOException {
        startConsoleWithUsers();
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        openWithToken(TOKEN + "-bob");
        awaitElement("#configs tr[data-config='orders/limits']");
        awaitElement("#config-new").click();

        awaitElement("#create-id").sendKeys("orders/limits");
        chrome.findElement(By.id("create-content")).sendKeys("max-requests: 1");
        chrome.findElement(By.id("create-yes")).click();

        assertThat(awaitElement("#message").getText()).startsWith("Failed:").contains("Conflict");
        assertThat(chrome.findElement(By.id("create")).isDisplayed()).as("the dialog stays, with the text").isTrue();
        assertThat(sdk.config().get("orders/limits").orElseThrow().content()).isEqualTo("max-requests: 100");
    }

    @Test
    void aConfigIsDeletedOnlyOnceConfirmed() throws IOException {
        startConsoleWithUsers();
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        openWithToken(TOKEN + "-alice");
        awaitElement("#configs tr[data-config='orders/limits']").click();
        awaitElement("#config-delete").click();
        assertThat(awaitElement("#confirm").getText()).contains("Delete orders/limits?");
        chrome.findElement(By.id("confirm-no")).click();
        await("the dialog closed").atMost(UI).until(() -> !chrome.findElement(By.id("confirm")).isDisplayed());
        assertThat(sdk.config().get("orders/limits")).isPresent();

        chrome.findElement(By.id("config-delete")).click();
        awaitElement("#confirm-yes").click();

        await("the config removed").atMost(UI).until(() -> sdk.config().get("orders/limits").isEmpty());
        await("the page says so").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("config-version")).getText()).isEqualTo("removed"));
    }

    @Test
    void anInstancesMetadataIsEditedThroughThePage() throws IOException {
        startConsoleWithUsers();
        register("orders-1", 8080, "eu-1");
        openWithToken(TOKEN + "-bob");
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances button[data-metadata='orders-1']").click();
        WebElement text = awaitElement("#metadata-text");
        assertThat(text.getAttribute("value").lines()).containsExactlyInAnyOrder("zone=eu-1", "version=2.3");

        text.clear();
        text.sendKeys("zone=eu-2\ncanary=true");
        chrome.findElement(By.id("metadata-save")).click();

        await("the metadata in Redis").atMost(UI).untilAsserted(() -> assertThat(sdk.directDiscovery()
                .getInstance("orders", "orders-1").orElseThrow().metadata())
                .isEqualTo(Map.of("zone", "eu-2", "canary", "true")));
        await("the row, live").atMost(UI).untilAsserted(() -> assertThat(chrome.findElement(
                By.cssSelector("#instances tr[data-instance='orders-1']")).getText()).contains("canary=true")
                .doesNotContain("version=2.3"));
    }

    @Test
    void anInstancesWeightIsSetThroughThePageAndShownInItsRow() throws IOException {
        startConsoleWithUsers();
        register("orders-1", 8080, "eu-1");
        openWithToken(TOKEN + "-bob");
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances button[data-weight='orders-1']").click();
        WebElement weight = awaitElement("#weight-value");
        assertThat(weight.getAttribute("value")).isEqualTo("100");

        weight.clear();
        weight.sendKeys("7");
        chrome.findElement(By.id("weight-save")).click();

        await("the weight in Redis").atMost(UI).untilAsserted(() -> assertThat(sdk.directDiscovery()
                .getInstance("orders", "orders-1").orElseThrow().weight()).isEqualTo(7));
        await("the row, live").atMost(UI).untilAsserted(() -> assertThat(chrome.findElement(
                By.cssSelector("#instances tr[data-instance='orders-1'] td:nth-child(3)")).getText()).isEqualTo("7"));
        assertThat(chrome.findElement(By.id("weight")).isDisplayed()).as("the dialog closed").isFalse();
    }

    @Test
    void aWeightOutOfRangeIsRefusedWithTheRuleAndChangesNothing() throws IOException {
        startConsoleWithUsers();
        register("orders-1", 8080, "eu-1");
        openWithToken(TOKEN + "-bob");
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances button[data-weight='orders-1']").click();
        WebElement weight = awaitElement("#weight-value");

        weight.clear();
        weight.sendKeys("20000");
        chrome.findElement(By.id("weight-save")).click();

        await("the refusal").atMost(UI).untilAsserted(() -> assertThat(chrome.findElement(By.id("message"))
                .getText()).contains("weight must be between 0 and 10000, but was 20000"));
        assertThat(chrome.findElement(By.id("weight")).isDisplayed()).as("the dialog stays open").isTrue();
        assertThat(sdk.directDiscovery().getInstance("orders", "orders-1").orElseThrow().weight()).isEqualTo(100);
    }

    @Test
    void aUserSwitchesBetweenTheNamespacesTheyMaySee() throws IOException {
        startConsoleWithUsers("--namespaces", namespace + "," + other);
        register("orders-1", 8080, "eu-1");
        try (LodestarClient otherSdk = RedisLodestar.create(LodestarOptions.builder(redis.uri()).namespace(other)
                .build())) {
            otherSdk.registry().register(ServiceInstance.builder("billing", "billing-1").host("10.0.2.4").port(9090)
                    .build());
            otherSdk.config().set("billing/rates", "vat: 0.2", ConfigFormat.YAML);
            openWithToken(TOKEN + "-olga");
            awaitElement("#services tr[data-service='orders']");
            assertThat(chrome.findElement(By.id("whoami")).getText()).isEqualTo("olga · read");

            awaitElement("#ns-switch option[value='" + other + "']").click();

            awaitElement("#services tr[data-service='billing']");
            awaitElement("#configs tr[data-config='billing/rates']").click();
            assertThat(ids("#services tr[data-service]", "data-service")).containsExactly("billing");
            assertThat(chrome.findElement(By.id("namespace")).getText()).isEqualTo(other);
            assertThat(chrome.findElement(By.id("whoami")).getText()).isEqualTo("olga · admin");
            assertThat(awaitElement("#config-delete").isDisplayed()).isTrue();

            chrome.navigate().refresh(); // the address names the namespace too

            awaitElement("#services tr[data-service='billing']");
            assertThat(awaitElement("#config-id").getText()).isEqualTo("billing/rates");
        }
    }

    @Test
    void aUserSeesNoSwitchWhereTheyMaySeeOneNamespace() throws IOException {
        startConsoleWithUsers("--namespaces", namespace + "," + other);
        register("orders-1", 8080, "eu-1");

        openWithToken(TOKEN + "-rita");

        awaitElement("#services tr[data-service='orders']");
        assertThat(chrome.findElement(By.id("ns-switch")).isDisplayed()).isFalse();
        assertThat(chrome.findElements(By.cssSelector("#ns-switch option"))).hasSize(1);
    }

    @Test
    void aLongListIsShownAPageAtATime() throws IOException {
        startConsoleWithUsers();
        for (int i = 0; i < 60; i++) {
            sdk.config().set("app/config-%02d".formatted(i), "n: " + i, ConfigFormat.YAML);
        }
        openWithToken(TOKEN + "-rita");
        awaitElement("#configs tr[data-config='app/config-00']");
        assertThat(chrome.findElements(By.cssSelector("#configs tr[data-config]"))).hasSize(50);
        assertThat(chrome.findElement(By.id("configs-pager")).getText()).contains("1–50 of 60");

        chrome.findElement(By.cssSelector("#configs-pager button[data-page='next']")).click();

        await("the second page").atMost(UI).untilAsserted(() -> assertThat(
                ids("#configs tr[data-config]", "data-config")).hasSize(10).first().isEqualTo("app/config-50"));
        assertThat(chrome.findElement(By.id("configs-pager")).getText()).contains("51–60 of 60");
        assertThat(chrome.findElement(By.cssSelector("#configs-pager button[data-page='next']")).isEnabled())
                .isFalse();
        // the page asked the console for that page alone, not for the whole list to page itself
        assertThat(chrome.executeScript("return performance.getEntriesByType('resource').map(e => e.name)"))
                .asString().contains("/api/configs?offset=50&limit=50");
    }

    @Test
    void overHttpsThePageWorksAsOverHttp() throws Exception {
        TestCertificate certificate = TestCertificate.create(dir, "ec");
        startConsoleWithUsers("--tls-cert", certificate.certificate().toString(), "--tls-key",
                certificate.key().toString());
        register("orders-1", 8080, "eu-1");

        openWithToken(TOKEN + "-rita");

        assertThat(chrome.getCurrentUrl()).startsWith("https://127.0.0.1:");
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances tr[data-instance='orders-1']");
        assertThat(chrome.findElement(By.id("live")).getText()).isEqualTo("live");
    }

    @Test
    void anEditIsACompareAndSetOnTheVersionItStartedFrom() {
        startConsole(TestRedis.standalone());
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        openWithToken(TOKEN);
        awaitElement("#configs tr[data-config='orders/limits']").click();
        WebElement editor = awaitElement("#config-content");
        await("the content").atMost(UI).until(() -> editor.getAttribute("value").equals("max-requests: 100"));
        editor.clear();
        editor.sendKeys("max-requests: 200");

        sdk.config().set("orders/limits", "max-requests: 300", ConfigFormat.YAML);
        await("the page learns of version 2").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("config-version")).getText()).isEqualTo("version 2"));
        chrome.findElement(By.id("config-save")).click();

        await("the conflict").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("message")).getText()).startsWith("Failed:").contains("Conflict"));
        assertThat(sdk.config().get("orders/limits").orElseThrow().content()).isEqualTo("max-requests: 300");

        chrome.navigate().refresh();
        WebElement token = awaitElement("#token");
        token.clear(); // the page keeps the token for the browser tab
        token.sendKeys(TOKEN, Keys.ENTER);
        awaitElement("#configs tr[data-config='orders/limits']").click();
        await("the current content").atMost(UI).until(() -> chrome.findElement(By.id("config-content"))
                .getAttribute("value").equals("max-requests: 300"));
        chrome.findElement(By.id("config-content")).sendKeys("\ntimeout: 2s");
        chrome.findElement(By.id("config-save")).click();

        await("the edit in Redis").atMost(UI).untilAsserted(() -> assertThat(
                sdk.config().get("orders/limits").orElseThrow().content()).isEqualTo("max-requests: 300\ntimeout: 2s"));
    }

    @Test
    void aRollbackDuringAnEditKeepsItsSuccessMessage() {
        startConsole(TestRedis.standalone());
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        sdk.config().set("orders/limits", "max-requests: 5", ConfigFormat.YAML);
        openWithToken(TOKEN);
        awaitElement("#configs tr[data-config='orders/limits']").click();
        WebElement editor = awaitElement("#config-content");
        await("the content").atMost(UI).until(() -> editor.getAttribute("value").equals("max-requests: 5"));
        editor.sendKeys("0");

        awaitElement("#history button[data-rollback='1']").click();
        awaitElement("#confirm-yes").click();

        await("version 3 on the page").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("config-version")).getText()).isEqualTo("version 3"));
        // the page refreshes the config again when the change's event arrives: the message must outlive that
        await("the success message, kept").during(Duration.ofSeconds(2)).atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("message")).getText())
                .isEqualTo("orders/limits: version 3 (content of version 1)"));
        assertThat(editor.getAttribute("value")).isEqualTo("max-requests: 50");
    }

    @Test
    void anEditCanBeDiscarded() {
        startConsole(TestRedis.standalone());
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        openWithToken(TOKEN);
        awaitElement("#configs tr[data-config='orders/limits']").click();
        WebElement editor = awaitElement("#config-content");
        await("the content").atMost(UI).until(() -> editor.getAttribute("value").equals("max-requests: 100"));
        editor.sendKeys("0");
        sdk.config().set("orders/limits", "max-requests: 300", ConfigFormat.YAML);
        await("the page learns of version 2").atMost(UI).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("config-version")).getText()).isEqualTo("version 2"));

        chrome.findElement(By.id("config-discard")).click();

        await("the current content").atMost(UI).until(() -> editor.getAttribute("value")
                .equals("max-requests: 300"));
        assertThat(chrome.findElement(By.id("save-version")).getText()).isEqualTo("2");
    }

    @Test
    void anEvictionIsConfirmedFirst() {
        startConsole(TestRedis.standalone());
        register("orders-1", 8080, "eu-1");
        openWithToken(TOKEN);
        awaitElement("#services tr[data-service='orders']").click();

        awaitElement("#instances button[data-evict='orders-1']").click();

        assertThat(awaitElement("#confirm").getText()).contains("Evict orders-1 from orders?");
        chrome.findElement(By.id("confirm-yes")).click();
        await("orders-1 evicted").atMost(UI).until(() -> sdk.directDiscovery().getInstance("orders", "orders-1")
                .isEmpty());
    }

    @Test
    void aCancelledEvictionLeavesTheInstance() {
        startConsole(TestRedis.standalone());
        register("orders-1", 8080, "eu-1");
        openWithToken(TOKEN);
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#instances button[data-evict='orders-1']").click();

        awaitElement("#confirm-no").click();

        await("the dialog closed").atMost(UI).until(() -> !chrome.findElement(By.id("confirm")).isDisplayed());
        await("orders-1 still registered").during(Duration.ofSeconds(1)).atMost(UI).untilAsserted(() -> assertThat(
                sdk.directDiscovery().getInstance("orders", "orders-1")).isPresent());
        assertThat(console.output()).doesNotContain("action=instance.evict");
    }

    @Test
    void theServiceAndConfigOnScreenSurviveAReload() {
        startConsole(TestRedis.standalone());
        register("orders-1", 8080, "eu-1");
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        openWithToken(READ_TOKEN);
        awaitElement("#services tr[data-service='orders']").click();
        awaitElement("#configs tr[data-config='orders/limits']").click();
        awaitElement("#config-panel");

        chrome.navigate().refresh(); // the token stays for the browser tab

        awaitElement("#instances tr[data-instance='orders-1']");
        assertThat(awaitElement("#config-id").getText()).isEqualTo("orders/limits");
        assertThat(chrome.getCurrentUrl()).endsWith("#service=orders&config=orders%2Flimits");
    }

    @Test
    void aSharedLinkOpensItsServiceAndConfigOnceATokenIsGiven() {
        startConsole(TestRedis.standalone());
        register("orders-1", 8080, "eu-1");
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);

        chrome.get(console.url() + "#service=orders&config=orders%2Flimits");
        awaitElement("#token").sendKeys(READ_TOKEN, Keys.ENTER);

        awaitElement("#instances tr[data-instance='orders-1']");
        assertThat(awaitElement("#config-content").getAttribute("value")).isEqualTo("max-requests: 100");
    }

    @Test
    void theListsKeepTheIdsThatContainTheFiltersText() {
        startConsole(TestRedis.standalone());
        register("orders-1", 8080, "eu-1");
        sdk.registry().register(ServiceInstance.builder("billing", "billing-1").host("10.0.2.4").port(9090).build());
        sdk.config().set("orders/limits", "max-requests: 100", ConfigFormat.YAML);
        sdk.config().set("billing/rates", "{\"vat\": 0.2}", ConfigFormat.JSON);
        openWithToken(READ_TOKEN);
        awaitElement("#services tr[data-service='billing']");
        awaitElement("#configs tr[data-config='billing/rates']");

        chrome.findElement(By.id("service-filter")).sendKeys("BILL");
        chrome.findElement(By.id("config-filter")).sendKeys("orders");

        await("the filtered lists").atMost(UI).untilAsserted(() -> {
            assertThat(ids("#services tr[data-service]", "data-service")).containsExactly("billing");
            assertThat(ids("#configs tr[data-config]", "data-config")).containsExactly("orders/limits");
        });
    }

    private List<String> ids(String rows, String attribute) {
        return chrome.findElements(By.cssSelector(rows)).stream().map(row -> row.getAttribute(attribute)).toList();
    }

    @ParameterizedTest
    @EnumSource(RedisFault.class)
    void aBannerSaysSoWhileRedisIsUnreachableAndGoesWhenItAnswersAgain(RedisFault fault) {
        RedisServer own = TestRedis.startStandalone();
        startConsole(own);
        register("orders-1", 8080, "eu-1");
        openWithToken(READ_TOKEN);
        awaitElement("#services tr[data-service='orders']");
        assertThat(chrome.findElement(By.id("stale-banner")).isDisplayed()).isFalse();

        fault.begin(own);
        try {
            assertThat(awaitElement("#stale-banner").getText()).contains("Redis is unreachable");
        } finally {
            fault.end(own);
        }

        await("the banner to go").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                chrome.findElement(By.id("stale-banner")).isDisplayed()).isFalse());
    }

    /** target/console.png; also docs/console.png when -Dlodestar.screenshot names it. */
    private void screenshot() throws IOException {
        assertThat(Browser.screenshot(chrome, "console.png", "lodestar.screenshot")).isPositive();
    }
}
