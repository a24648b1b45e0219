package io.fencepost.sample.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fencepost.sample.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The walk-through's steps through the lab's API, on PostgreSQL: each result comes from the store's view and the
 * clients' answers; and the counts the page shows agree with each other and are kept by the lab (a fresh read, as a
 * reloaded page makes, shows the same).
 */
@ExtendWith(TestDatabase.class) // before @SpringBootTest: the database outlives the application
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.settlement.enabled=false",
            "sample.instance-name=steps",
            "sample.lab.lease-time=1s",
            "sample.lab.work-time=250ms",
            "sample.lab.pause-time=2500ms"
        })
class LabStepsTest {

    private static final Pattern LOST_NOW = Pattern.compile("(\\d+) lost update\\(s\\) now");

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestDatabase::jdbcUrl);
    }

    private final HttpClient http = HttpClient.newHttpClient();

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void theRaceGrantsExactlyOneAndTheOthersAreToldBusyOrWaitTheirTurn() throws Exception {
        JsonNode result = run("race");
        assertThat(result.get("asPromised").asBoolean()).isTrue();
        assertThat(result.get("text").asText())
                .containsPattern("racer-\\d \\(token \\d+\\) won; (racer-\\d, ){2}racer-\\d told busy")
                .contains("the store names lab-racer-")
                .containsPattern(
                        "granted one after another, (racer-\\d \\(token \\d+\\), ){3}racer-\\d \\(token \\d+\\)")
                .contains("the store named it and nobody else");
    }

    @Test
    void aDeadHoldersKeyIsGrantedOnlyAfterItsLeaseExpiredByTheStoresClock() throws Exception {
        JsonNode result = run("dead-holder");
        assertThat(result.get("asPromised").asBoolean()).isTrue();
        String text = result.get("text").asText();
        assertThat(text).containsPattern("\\d+ ms after the dead lease expired by the store's clock");
        Matcher afterDeath = Pattern.compile("(\\d+) ms after the death").matcher(text);
        assertThat(afterDeath.find()).isTrue();
        // Not before the lease (1 s, renewed while it lived) could have run out.
        assertThat(Long.parseLong(afterDeath.group(1))).isGreaterThanOrEqualTo(500);
    }

    @Test
    void aStaleReleaseRemovesNothing() throws Exception {
        JsonNode result = run("stale-release");
        assertThat(result.get("asPromised").asBoolean()).isTrue();
        assertThat(result.get("text").asText())
                .contains("answered false: the store removed nothing")
                .contains("still names lab-newer@steps");
    }

    @Test
    void renewalMovesTheLeasesEndWhileTheJobWorksAndStopsAtTheMaxHoldTime() throws Exception {
        JsonNode result = run("renewal");
        assertThat(result.get("asPromised").asBoolean()).isTrue();
        assertThat(result.get("text").asText())
                .containsPattern("kept token \\d+ throughout: renewal moved its lease's end ([2-9]|\\d{2,}) time")
                .contains("renewed up to its max hold time of 2000 ms and no further")
                .contains("the job was told it lost the key");
    }

    @Test
    void theViolationsLostUpdatesAgreeWithTheResourcesAndStayPinnedUntilReset() throws Exception {
        post("/api/lab/start");
        post("/api/lab/fencing?mode=off");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> state().at("/counters/grants").asLong() >= 4);
        post("/api/lab/pause");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> state().at("/counters/violations").asLong() >= 1);

        // Whatever writes follow, the newest pinned event tells the lost updates that the resource row shows.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode state = state();
            JsonNode newest = state.get("pinned").get(0);
            Matcher lost = LOST_NOW.matcher(newest.get("text").asText());
            assertThat(lost.find()).as(newest.toString()).isTrue();
            JsonNode resource = state.get("resource");
            assertThat(resource.get("lostUpdates").asLong())
                    .isEqualTo(Long.parseLong(lost.group(1)))
                    .isEqualTo(resource.get("version").asLong()
                            - resource.get("value").asLong());
        });
        JsonNode reloaded = state();
        assertThat(reloaded.get("pinned"))
                .anySatisfy(event -> assertThat(event.get("text").asText()).startsWith("VIOLATION"))
                // each says what the resource's lost updates were right after it, as the page's figure counts them
                .allSatisfy(event -> assertThat(event.get("text").asText()).containsPattern(LOST_NOW));

        post("/api/lab/stop");
        post("/api/lab/reset");
        assertThat(state().get("pinned")).isEmpty();
        assertThat(state().get("results")).isEmpty();
    }

    /** Runs a step and returns its result once it has one. */
    private JsonNode run(String step) throws Exception {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> state().get("stepRunning").isNull());
        post("/api/lab/steps/" + step);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> state().get("stepRunning").isNull()
                        && state().get("results").has(step));
        return state().get("results").get(step);
    }

    private void post(String path) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header(LabRequestGuard.HEADER, "1")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isBetween(200, 299);
    }

    private JsonNode state() throws Exception {
        return json.readTree(http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/lab?since=0"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
    }
}
