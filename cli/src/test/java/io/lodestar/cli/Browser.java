package io.lodestar.cli;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A real headless Chromium driven by Selenium, from the distribution's packages ({@code chromium} and
 * {@code chromium-driver}, which {@code .ci/run} installs). Nothing is downloaded: the driver and browser are found
 * on the PATH (or named by {@code LODESTAR_CHROMEDRIVER} / {@code LODESTAR_CHROMIUM}); where they are missing the
 * test is skipped and says what to install.
 */
final class Browser {
    private Browser() {
    }

    static ChromeDriver start() {
        Optional<Path> driver = find("LODESTAR_CHROMEDRIVER", "chromedriver");
        Optional<Path> browser = find("LODESTAR_CHROMIUM", "chromium", "chromium-browser", "google-chrome");
        Assumptions.assumeTrue(driver.isPresent() && browser.isPresent(), "No Chromium and chromedriver found on"
                + " the PATH: install the Debian packages chromium and chromium-driver (.ci/run does) to run the"
                + " console's browser tests");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser.get().toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1440,1040", "--no-first-run", "--no-default-browser-check");
        // the HTTPS tests' consoles use self-signed certificates made for the test (see TestCertificate)
        options.setAcceptInsecureCerts(true);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driver.get().toFile()).usingAnyFreePort()
                .withTimeout(Duration.ofSeconds(60)).build();
        ChromeDriver chrome = new ChromeDriver(service, options);
        chrome.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(10));
        return chrome;
    }

    /**
     * Saves what {@code chrome} shows as target/{@code file}, and also where the system property {@code docsProperty}
     * names (a screenshot in docs/ is taken again with it); returns the saved file's size.
     */
    static long screenshot(ChromeDriver chrome, String file, String docsProperty) throws IOException {
        Path shot = chrome.getScreenshotAs(OutputType.FILE).toPath();
        Path target = Files.copy(shot, Path.of("target", file), StandardCopyOption.REPLACE_EXISTING);
        String docs = System.getProperty(docsProperty);
        if (docs != null && !docs.isBlank()) {
            Files.copy(target, Path.of(docs), StandardCopyOption.REPLACE_EXISTING);
        }
        return Files.size(target);
    }

    private static Optional<Path> find(String variable, String... names) {
        String given = System.getenv(variable);
        if (given != null && Files.isExecutable(Path.of(given))) {
            return Optional.of(Path.of(given));
        }
        List<String> dirs = Arrays.asList(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator));
        for (String name : names) {
            for (String dir : dirs) {
                Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
