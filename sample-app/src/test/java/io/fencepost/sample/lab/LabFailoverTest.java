package io.fencepost.sample.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fencepost.sample.TestDatabase;
import io.fencepost.sample.db.DataDirectories;
import io.fencepost.sample.db.ReplicatedPair;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * "Fail over the store" through the lab's API, on embedded primaries and standbys: a double grant and a lost update
 * with the asynchronous standby (fencing off), none with the synchronous one; and no postmaster or data directory
 * left behind, neither when the lab stops nor after a process that died without stopping them (swept at the next
 * start).
 */
@ExtendWith(TestDatabase.class) // before @SpringBootTest: the database outlives the application
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"sample.settlement.enabled=false", "sample.instance-name=failover", "sample.lab.lease-time=1s"})
@Tag("full")
@DirtiesContext
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LabFailoverTest {

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", TestDatabase::jdbcUrl);
    }

    @Autowired
    Lab lab;

    private final HttpClient http = HttpClient.newHttpClient();

    private final ObjectMapper json = new ObjectMapper();

    @Test
    @Order(1)
    void theAsynchronousStandbyGrantsTwiceAndTheSynchronousOneDoesNot() throws Exception {
        post("/api/lab/fencing?mode=off");
        JsonNode asynchronous = run("failover-async");
        assertThat(asynchronous.get("asPromised").asBoolean()).isFalse();
        assertThat(asynchronous.get("text").asText())
                .startsWith("Asynchronous standby, 1 failover(s): 1 double grant(s)")
                .contains("1 lost update(s) with fencing off");

        JsonNode synchronous = run("failover-sync");
        assertThat(synchronous.get("asPromised").asBoolean()).isTrue();
        assertThat(synchronous.get("text").asText())
                .startsWith("Synchronous standby, 1 failover(s): 0 double grant(s)")
                .containsPattern("grant commit [0-9.]+ ms median, against [0-9.]+ ms with the asynchronous standby")
                .contains("docs/high-availability.md");
        assertThat(postmasters()).isEmpty();
    }

    @Test
    @Order(2)
    void whatAProcessKilledMidFailoverLeftRunningIsSweptAtTheNextStart() throws Exception {
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor();
        Path run = FailoverGround.BASE.resolve("run-" + dead.pid());
        Path template = ReplicatedPair.template(run.resolve("template"), dataSource -> {});
        ReplicatedPair.start(template, run.resolve("pair-1"), false); // never closed: its process "died"
        assertThat(postmasters()).hasSize(2);

        assertThat(FailoverGround.sweep()).isEqualTo(1);

        await().atMost(Duration.ofSeconds(10)).until(() -> postmasters().isEmpty());
        assertThat(run).doesNotExist();
    }

    @Test
    @Order(3)
    void stoppingTheLabLeavesNoPostmasterAndNoDataDirectory() throws Exception {
        run("failover-async");
        lab.destroy(); // as the application's shutdown does

        assertThat(postmasters()).isEmpty();
        assertThat(Files.exists(FailoverGround.BASE.resolve(
                        "run-" + ProcessHandle.current().pid())))
                .isFalse();
        DataDirectories.sweep(FailoverGround.BASE); // nothing of ours to sweep
    }

    /** Postmasters of the lab's failover databases: processes of the embedded binaries under its base folder. */
    private static List<ProcessHandle> postmasters() {
        String base = FailoverGround.BASE.toString();
        return ProcessHandle.allProcesses()
                .filter(process -> process.info()
                        .arguments()
                        .map(arguments -> Arrays.stream(arguments).anyMatch(argument -> argument.startsWith(base)))
                        .orElse(false))
                .toList();
    }

    private JsonNode run(String step) throws Exception {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> state().get("stepRunning").isNull());
        post("/api/lab/steps/" + step);
        await().atMost(Duration.ofMinutes(2))
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
