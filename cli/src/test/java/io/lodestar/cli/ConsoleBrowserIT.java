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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
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

    private final String namespace = "console-" + UUID.randomUUID().toString().substring(0, 8);
    private ChromeDriver chrome;
    private RedisServer redis;
    private LodestarClient sdk;
    private ConsoleProcess console;

    @BeforeEach
    void openBrowser() {
        chrome = Browser.start();
    }

    @AfterEach
    void closeAll() {
        if (chrome != null) {
            chrome.quit();
        }
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
        redis = server;
        sdk = RedisLodestar.create(LodestarOptions.builder(server.uri()).namespace(namespace)
                .startupMode(StartupMode.OFFLINE).build());
        console = new ConsoleProcess(Map.of("LODESTAR_CONSOLE_READ_TOKEN", READ_TOKEN), server.uri(), namespace,
                "--token", TOKEN);
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
        startConsole(TestRedis.standalone());
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
        chrome.get(console.url());
        awaitElement("#operator").sendKeys("alice");
        chrome.findElement(By.id("token")).sendKeys(TOKEN, Keys.ENTER);
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
    void aWriteWithTheReadTokenIsRefused() {
        startConsole(TestRedis.standalone());
        sdk.config().set("orders/limits", "good", ConfigFormat.TEXT);
        sdk.config().set("orders/limits", "bad", ConfigFormat.TEXT);
        openWithToken(READ_TOKEN);
        awaitElement("#configs tr[data-config='orders/limits']").click();

        awaitElement("#history button[data-rollback='1']").click();
        awaitElement("#confirm-yes").click();

        assertThat(awaitElement("#message").getText()).startsWith("Refused:").contains("token");
        await("the refusal in the audit log").atMost(UI).untilAsserted(() -> assertThat(console.output())
                .contains("action=config.rollback target=orders/limits refused: no valid token"));
        assertThat(sdk.config().get("orders/limits").orElseThrow().version()).isEqualTo(2);
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
        Path shot = chrome.getScreenshotAs(OutputType.FILE).toPath();
        Path target = Files.copy(shot, Path.of("target", "console.png"), StandardCopyOption.REPLACE_EXISTING);
        String docs = System.getProperty("lodestar.screenshot");
        if (docs != null && !docs.isBlank()) {
            Files.copy(target, Path.of(docs), StandardCopyOption.REPLACE_EXISTING);
        }
        assertThat(Files.size(target)).isPositive();
    }
}
