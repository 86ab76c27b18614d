package io.lodestar.cli;

import io.lodestar.core.LodestarClient;
import io.lodestar.core.LodestarOptions;
import io.lodestar.core.model.ServiceInstance;
import io.lodestar.redis.RedisLodestar;
import io.lodestar.test.RedisServer;
import io.lodestar.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import java.io.IOException;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console by region in a real headless Chromium ({@code --home east --remote west=URI}, two local Redis
 * servers): switching to the remote region shows its instances, read-only; its Redis going down marks it stale, and
 * only it. Skipped, as {@link ConsoleBrowserIT} is, where Chromium or chromedriver cannot be found.
 */
class ConsoleRegionsBrowserIT {
    private static final Duration UI = Duration.ofSeconds(20);
    private static final String TOKEN = "test-token-" + UUID.randomUUID();

    private final String namespace = "console-regions-" + UUID.randomUUID().toString().substring(0, 8);
    private final RedisServer east = TestRedis.standalone();
    private final RedisServer west = TestRedis.startStandalone();
    private ChromeDriver chrome;
    private LodestarClient inEast;
    private LodestarClient inWest;
    private ConsoleProcess console;

    @BeforeEach
    void start() {
        chrome = Browser.start();
        inEast = RedisLodestar.create(LodestarOptions.builder(east.uri()).namespace(namespace).region("east").build());
        // west's instances stay when its client closes: the server itself goes when a test takes west down
        inWest = RedisLodestar.create(LodestarOptions.builder(west.uri()).namespace(namespace).region("west")
                .deregisterOnClose(false).build());
    }

    @AfterEach
    void closeAll() {
        if (chrome != null) {
            chrome.quit();
        }
        if (console != null) {
            console.close();
        }
        inEast.close();
        inWest.close();
        west.close();
    }

    private WebElement awaitElement(String css) {
        return await(css).atMost(UI).ignoreExceptions()
                .until(() -> chrome.findElements(By.cssSelector(css)).stream().findFirst().orElse(null),
                        element -> element != null && element.isDisplayed());
    }

    private static void register(LodestarClient client, String id, int port, String zone) {
        client.registry().register(ServiceInstance.builder("orders", id).host("10.0.0.7").port(port).weight(100)
                .metadata("zone", zone).build());
    }

    @Test
    void theOperatorSwitchesToTheRemoteRegionSeesItReadOnlyAndSeesItTurnStale() throws IOException {
        // given
        register(inEast, "orders-e1", 8080, "east-1a");
        register(inWest, "orders-w1", 8080, "west-1a");
        register(inWest, "orders-w2", 8081, "west-1b");
        console = new ConsoleProcess(east.uri(), namespace, "--token", TOKEN, "--home", "east", "--remote",
                "west=" + west.uri());
        chrome.get(console.url());
        awaitElement("#token").sendKeys(TOKEN, Keys.ENTER);

        // when the operator shows west alone and opens orders there
        awaitElement("#region-switch option[value='west']").click();
        awaitElement("#region-services tr[data-region-service='orders']").click();

        // then west's instances are listed with their region, without a button
        assertThat(awaitElement("#region-instances tr[data-region-instance='orders-w2']").getText())
                .contains("west", "10.0.0.7:8081", "west-1b");
        assertThat(awaitElement("#region-instances tr[data-region-instance='orders-w1']").getText()).contains("west");
        assertThat(chrome.findElements(By.cssSelector("#region-instances tr[data-region-instance='orders-e1']")))
                .isEmpty();
        assertThat(chrome.findElements(By.cssSelector("#region-instances button"))).isEmpty();

        // when all regions are shown: home's instance has its button, west's have none
        awaitElement("#region-switch option[value='*']").click();
        awaitElement("#region-instances button[data-region-toggle='orders-e1']");
        assertThat(chrome.findElements(By.cssSelector("#region-instances button"))).hasSize(1);
        screenshot();

        // when west's Redis goes down
        west.close();

        // then west is marked stale, east is not, and west's instances stay on screen as last seen
        awaitElement("#region-badges span[data-region='west'][data-stale='yes']");
        assertThat(chrome.findElement(By.cssSelector("#region-badges span[data-region='west']")).getText())
                .startsWith("west: stale for");
        assertThat(chrome.findElement(By.cssSelector("#region-badges span[data-region='east']"))
                .getAttribute("data-stale")).isEqualTo("no");
        assertThat(chrome.findElement(By.id("stale-banner")).isDisplayed()).as("home's staleness banner").isFalse();
        assertThat(chrome.findElements(By.cssSelector("#region-instances tr[data-region-instance]"))).hasSize(3);
    }

    /** target/console-regions.png; also the file -Dlodestar.regions-screenshot names (docs/console-regions.png). */
    private void screenshot() throws IOException {
        assertThat(Browser.screenshot(chrome, "console-regions.png", "lodestar.regions-screenshot")).isPositive();
    }
}
