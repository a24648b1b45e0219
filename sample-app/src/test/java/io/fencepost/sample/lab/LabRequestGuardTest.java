package io.fencepost.sample.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.sample.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.Environment;

/** The lab's operations refuse what another site can make a browser send, and the sample listens on this machine. */
@ExtendWith(TestDatabase.class) // before @SpringBootTest: the database outlives the application
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sample.settlement.enabled=false")
class LabRequestGuardTest {

    @LocalServerPort
    int port;

    @Autowired
    Environment environment;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aCrossSiteFormPostToALabOperationIsRefusedAndTheLabPagesOwnRequestIsAnswered() throws Exception {
        // What a form on another site makes the browser send: a plain form POST, no custom header.
        HttpResponse<String> forged = http.send(
                post("/api/lab/fencing?mode=off")
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Origin", "https://attacker.example")
                        .POST(HttpRequest.BodyPublishers.ofString("mode=off"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(lab()).contains("\"fencingMode\":\"column\"");

        HttpResponse<String> own = http.send(
                post("/api/lab/fencing?mode=transaction")
                        .header(LabRequestGuard.HEADER, "1")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(own.statusCode()).isEqualTo(204);
        assertThat(lab()).contains("\"fencingMode\":\"transaction\"");
    }

    @Test
    void listensOnThisMachineOnlyUnlessToldOtherwise() {
        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.1");
    }

    private HttpRequest.Builder post(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    }

    private String lab() throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/lab"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
