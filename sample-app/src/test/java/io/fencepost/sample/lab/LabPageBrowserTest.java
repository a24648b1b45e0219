package io.fencepost.sample.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.sample.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The lab page in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}): pausing the
 * holder past its lease is harmless with a fence column, a counted violation without fencing, a rolled-back
 * transaction with the transaction fenced, and killing the store makes acquires fail closed (no grant, no violation).
 * It also checks what the page explains (what killing the store does, token gaps, the fence with fencing off), that
 * the header's locks link answers with the lab's own lease, and that rejections and violations stay pinned. Skipped,
 * with a message, when the browser is not installed; nothing is downloaded.
 *
 * <p>It then runs the walk-through's steps from their buttons (the race, a holder that dies, a stale release, renewal),
 * fails the store over five times with each standby (asynchronous: at least one double grant and a lost update;
 * synchronous: none), and reloads the page: the pins, counters and results are still shown.
 *
 * <p>{@code -Dlab.screenshot=PATH} also saves the page, as it looks after the violation and again after the
 * failovers, to PATH (the README's {@code docs/demo.png} is made that way); it is always saved to
 * {@code target/lab-page.png}.
 */
@ExtendWith(TestDatabase.class) // before @SpringBootTest: the database outlives the application
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.instance-name=browser",
            "sample.settlement.cron=*/2 * * * * *",
            "sample.settlement.min-hold-time=1s",
            "sample.lab.lease-time=1s",
            "sample.lab.work-time=250ms",
            "sample.lab.pause-time=2500ms",
            "sample.lab.outage-time=3s"
        })
@Tag("full")
@DirtiesContext
@EnabledIf(value = "browserInstalled", disabledReason = LabPageBrowserTest.NO_BROWSER)
class LabPageBrowserTest {

    static final String NO_BROWSER = "no headless browser (/usr/bin/chromium, /usr/bin/chromedriver): install Debian's"
            + " packages with `apt-get install chromium chromium-driver` to run the lab page's browser test";

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private static final Duration STEP = Duration.ofSeconds(20);

    private static WebDriver browser;

    private static Path profile;

    @LocalServerPort
    private int port;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestDatabase::jdbcUrl);
    }

    /** Decided before anything starts: without a browser, neither the database nor the application is set up. */
    static boolean browserInstalled() {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed) {
            LoggerFactory.getLogger(LabPageBrowserTest.class).warn("skipped: {}", NO_BROWSER);
        }
        return installed;
    }

    @BeforeAll
    static void startBrowser() throws IOException {
        // The driver and browser are named, so Selenium Manager never runs (and never downloads anything).
        System.setProperty("SE_AVOID_STATS", "true");
        System.setProperty("SE_OFFLINE", "true");
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        profile = Files.createTempDirectory("lab-chromium-");
        ChromeOptions options = new ChromeOptions()
                .setBinary(CHROMIUM.toFile())
                .addArguments(
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-dev-shm-usage",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--no-first-run",
                        "--window-size=1440,1500",
                        "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
        browser.manage().window().setSize(new Dimension(1440, 1500));
    }

    @AfterAll
    static void stopBrowserAndApplication() throws IOException {
        if (browser != null) {
            browser.quit();
        }
        if (profile != null) {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    @Test
    void pausingTheHolderIsHarmlessWithFencingAndAViolationWithoutIt() throws IOException {
        browser.get("http://127.0.0.1:" + port + "/");
        WebDriverWait wait = new WebDriverWait(browser, STEP);
        wait.until(page -> number("grants") >= 3);
        assertThat(text("fencing-state")).isEqualTo("ON");
        assertThat(browser.findElements(By.cssSelector("#workers .worker"))).hasSize(3);
        pageExplainsWhatItShows();

        // The ledger's REST API, from the page: twenty transfers at once, and money is neither made nor lost.
        wait.until(page ->
                browser.findElements(By.cssSelector("#accounts-body tr")).size() == 6);
        browser.findElement(By.id("random-transfers")).click();
        wait.until(page -> text("transfer-result").contains("of 20 transfers booked"));
        assertThat(text("transfer-result")).doesNotContain("500");
        wait.until(page -> text("accounts-total").equals("6,000.00"));

        // Fencing on: the paused holder wakes up and writes with its old token; the resource refuses it.
        browser.findElement(By.id("pause-holder")).click();
        wait.until(page -> number("rejected") >= 1);
        assertThat(number("violations")).isZero();
        assertThat(text("violations-card", "class")).contains("ok");
        assertThat(eventTexts("rejected"))
                .anySatisfy(
                        text -> assertThat(text).contains("REJECTED").contains("the resource has already seen token"));
        String firstRejection = eventTexts("rejected").get(0);
        assertThat(eventTexts("pause")).anySatisfy(text -> assertThat(text).contains("is frozen for 2500 ms"));
        wait.until(page -> !browser.findElements(By.cssSelector("#grants-body tr[data-outcome='rejected']"))
                .isEmpty());

        // Fencing off: the same late write now lands on top of the newer holder's work.
        browser.findElement(By.id("fencing-off")).click();
        wait.until(page -> text("fencing-state").equals("OFF"));
        // With fencing off the fence stops moving: the page says why, with the value it shows.
        wait.until(page -> text("fence-note").startsWith("Fencing is off"));
        assertThat(text("fence-note"))
                .contains("its fence stays at " + text("resource-fence"))
                .contains("checks and records no token");
        // As below: a worker picks the mode when it is granted the key, so let the holds begun with fencing on end.
        long grantsAtFencingOff = number("grants");
        wait.until(page -> number("grants") >= grantsAtFencingOff + 2);
        browser.findElement(By.id("pause-holder")).click();
        wait.until(page -> number("violations") >= 1);
        assertThat(text("violations-card", "class")).contains("bad");
        assertThat(eventTexts("violation"))
                .anySatisfy(text -> assertThat(text).contains("VIOLATION").contains("with stale token"));
        wait.until(page -> number("resource-lost") >= 1);
        String firstViolation = eventTexts("violation").get(0);
        screenshot();

        // Fence the transaction: the paused holder's read and write are rolled back whole; no new violation.
        browser.findElement(By.id("fencing-transaction")).click();
        wait.until(page -> text("fencing-state").equals("TRANSACTION"));
        long violations = number("violations");
        // A worker picks the mode when it is granted the key: let the holds begun before the switch end first.
        long grantsAtSwitch = number("grants");
        wait.until(page -> number("grants") >= grantsAtSwitch + 2);
        browser.findElement(By.id("pause-holder")).click();
        wait.until(page -> eventTexts("rejected").stream().anyMatch(text -> text.contains("ROLLED BACK")));
        assertThat(eventTexts("rejected"))
                .anySatisfy(text -> assertThat(text).contains("ROLLED BACK").contains("is no longer held"));
        assertThat(number("violations")).isEqualTo(violations);

        // Kill the store: nobody can be granted the key, acquires fail closed; then the workers carry on.
        long grants = number("grants");
        browser.findElement(By.id("kill-store")).click();
        wait.until(page -> text("status-line").equals("LOCK STORE DOWN"));
        wait.until(page -> number("store-errors") >= 1);
        assertThat(eventTexts("store-down")).anySatisfy(text -> assertThat(text).contains("pg_terminate_backend"));
        wait.until(page -> text("outage-result").startsWith("Store down"));
        wait.until(page -> text("status-line").equals("workers running") && number("grants") > grants + 2);
        // What the outage did, counted by the lab from the kill until the store was back: it failed closed.
        assertThat(text("outage-result"))
                .startsWith("Last outage:")
                .containsPattern("[1-9][0-9]* acquire\\(s\\) failed closed")
                .contains(" 0 grant(s), 0 violation(s)");

        // However far the event log has moved on, the pinned list still shows the first rejection and violation.
        assertThat(pinned("rejected")).contains(firstRejection);
        assertThat(pinned("violation")).contains(firstViolation);
        assertThat(browser.findElement(By.id("pinned")).isDisplayed()).isTrue();

        walkThroughSteps();
        failOverTheStore();

        // A reload shows what the page showed: the lab keeps the pins, the counters and the results, not the page.
        String outage = text("outage-result");
        long violationsBefore = number("violations");
        browser.navigate().refresh();
        wait.until(page -> !pinned("violation").isEmpty());
        assertThat(pinned("rejected")).contains(firstRejection);
        assertThat(pinned("violation")).contains(firstViolation);
        assertThat(number("violations")).isGreaterThanOrEqualTo(violationsBefore);
        assertThat(text("outage-result")).isEqualTo(outage);
        for (String step : List.of("race", "dead-holder", "stale-release", "renewal")) {
            wait.until(page -> browser.findElement(By.id("result-" + step)).isDisplayed());
        }
        assertThat(text("result-stale-release")).contains("the store removed nothing");
        assertThat(text("result-failover-async")).startsWith("Asynchronous standby, 5 failover(s)");
        assertThat(text("result-failover-sync")).startsWith("Synchronous standby, 5 failover(s): 0 double grant(s)");
    }

    /**
     * "Fail over the store" five times with each standby, fencing off: the asynchronous one grants the key twice at
     * least once, with a lost update; the synchronous one never.
     */
    private void failOverTheStore() throws IOException {
        browser.findElement(By.id("fencing-off")).click();
        new WebDriverWait(browser, STEP).until(page -> text("fencing-state").equals("OFF"));
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofMinutes(2));
        for (int round = 1; round <= 5; round++) {
            runStep(wait, "failover-async");
            runStep(wait, "failover-sync");
        }
        Matcher asynchronous = Pattern.compile(
                        "Asynchronous standby, 5 failover\\(s\\): ([0-9]+) double grant\\(s\\).* ([0-9]+) lost update\\(s\\)"
                                + " with fencing off")
                .matcher(text("result-failover-async"));
        assertThat(asynchronous.find()).as(text("result-failover-async")).isTrue();
        assertThat(Integer.parseInt(asynchronous.group(1))).isGreaterThanOrEqualTo(1);
        assertThat(Integer.parseInt(asynchronous.group(2))).isGreaterThanOrEqualTo(1);
        assertThat(text("result-failover-async", "class")).isEqualTo("outcome bad");
        assertThat(text("result-failover-async")).contains("WAL receiver was stopped just before x's grant");
        assertThat(text("result-failover-sync"))
                .startsWith("Synchronous standby, 5 failover(s): 0 double grant(s)")
                .containsPattern("grant commit [0-9.]+ ms median, against [0-9.]+ ms with the asynchronous standby");
        assertThat(text("result-failover-sync", "class")).isEqualTo("outcome ok");
        assertThat(text("failover-note")).contains("docs/high-availability.md").contains("WAL receiver is stopped");
        screenshot();
    }

    /** Each step of the walk-through from its button; its result on the page, from the lab's records. */
    private void walkThroughSteps() {
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
        runStep(wait, "race");
        assertThat(text("result-race"))
                .containsPattern("racer-\\d \\(token \\d+\\) won; (racer-\\d, ){2}racer-\\d told busy")
                .contains("granted one after another")
                .contains("the store named it and nobody else");
        runStep(wait, "dead-holder");
        assertThat(text("result-dead-holder"))
                .contains("died without releasing")
                .containsPattern("\\d+ ms after the dead lease expired by the store's clock");
        runStep(wait, "stale-release");
        assertThat(text("result-stale-release"))
                .contains("answered false: the store removed nothing")
                .contains("still names lab-newer@browser");
        runStep(wait, "renewal");
        assertThat(text("result-renewal"))
                .containsPattern("renewal moved its lease's end ([2-9]|\\d{2,}) time")
                .contains("renewed up to its max hold time")
                .contains("the job was told it lost the key");
        for (String step : List.of("race", "dead-holder", "stale-release", "renewal")) {
            assertThat(text("result-" + step, "class")).as(step).isEqualTo("outcome ok");
        }
        assertThat(text("need-a-lock"))
                .contains("idempotency key")
                .contains("compare-and-set on a version column")
                .contains("single writer");
    }

    /** Presses a step's button and waits for its new result (a step's result changes with every run). */
    private void runStep(WebDriverWait wait, String step) {
        wait.until(page -> browser.findElement(By.id("step-" + step)).isEnabled());
        String before = text("result-" + step);
        browser.findElement(By.id("step-" + step)).click();
        wait.until(page -> browser.findElement(By.id("step-" + step)).isEnabled()
                && !text("result-" + step).isEmpty()
                && !text("result-" + step).equals(before)
                && !text("result-" + step).startsWith("running"));
    }

    /** The page says what "kill the store" does, why tokens skip numbers, and links to the lab's own lease. */
    private void pageExplainsWhatItShows() {
        assertThat(text("tagline")).doesNotContainIgnoringCase("kill the store and");
        assertThat(text("kill-store-effect"))
                .contains("fails closed")
                .contains("nobody is granted the key")
                .contains("no violation");
        assertThat(text("token-note")).contains("a gap is not a lost grant");
        assertThat(browser.findElement(By.id("token-note")).isDisplayed()).isTrue();

        WebElement link = browser.findElement(By.id("locks-link"));
        assertThat(link.getText()).isEqualTo("/actuator/locks/lab:browser");
        String href = link.getDomProperty("href");
        // The store's view of the lab's key names a lab worker as its holder (the key may be free for a moment).
        HttpClient http = HttpClient.newHttpClient();
        new WebDriverWait(browser, STEP).until(page -> {
            try {
                HttpResponse<String> response =
                        http.send(HttpRequest.newBuilder(URI.create(href)).build(), BodyHandlers.ofString());
                return response.statusCode() == 200
                        && response.body().contains("\"key\":\"lab:browser\"")
                        && response.body().matches(".*\"holder\":\"lab-[A-C]@browser\".*");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    private long number(String id) {
        return Long.parseLong(text(id).trim());
    }

    private String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private String text(String id, String attribute) {
        return browser.findElement(By.id(id)).getDomAttribute(attribute);
    }

    private List<String> pinned(String kind) {
        return browser.findElements(By.cssSelector("#pinned li[data-kind='" + kind + "']")).stream()
                .map(event -> event.getDomProperty("textContent"))
                .toList();
    }

    private List<String> eventTexts(String kind) {
        return browser.findElements(By.cssSelector("#events li[data-kind='" + kind + "']")).stream()
                .map(event -> event.getDomProperty("textContent"))
                .toList();
    }

    private void screenshot() throws IOException {
        Path shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.createDirectories(Path.of("target"));
        Files.copy(shot, Path.of("target", "lab-page.png"), StandardCopyOption.REPLACE_EXISTING);
        String wanted = System.getProperty("lab.screenshot");
        if (wanted != null && !wanted.isBlank()) {
            Path target = Path.of(wanted).toAbsolutePath();
            Files.createDirectories(target.getParent());
            Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
