package io.fencepost.sample.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * On the embedded database the sample starts when none is configured, the application and its lab connect as a role
 * of their own, not the superuser, and the lab's "kill the store" still terminates the lab's lock connections.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"spring.datasource.url=", "sample.settlement.enabled=false"})
class LabDatabaseRoleTest {

    private static final Pattern KILLED = Pattern.compile("lock store killed: (\\d+) lock connection");

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theLabsConnectionIsNotASuperuserAndKillingTheStoreStillCutsItsLockConnections() throws Exception {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet role = statement.executeQuery("SELECT current_user, r.rolsuper, r.rolcreaterole,"
                        + " pg_has_role(current_user, 'pg_signal_backend', 'MEMBER')"
                        + " FROM pg_roles AS r WHERE r.rolname = current_user")) {
            assertThat(role.next()).isTrue();
            assertThat(role.getString(1)).isEqualTo("fencepost_sample");
            assertThat(role.getBoolean(2)).as("superuser").isFalse();
            assertThat(role.getBoolean(3)).as("may create roles").isFalse();
            assertThat(role.getBoolean(4)).as("member of pg_signal_backend").isTrue();
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String lockConnections = "SELECT count(*) FROM pg_stat_activity"
                + " WHERE application_name LIKE 'fencepost-lab-%' AND usename = current_user";

        assertThat(post("/api/lab/start").statusCode()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> jdbc.queryForObject(lockConnections, Integer.class), count -> count > 0);

        assertThat(post("/api/lab/kill-store").statusCode()).isEqualTo(202);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Matcher killed = KILLED.matcher(lab());
            assertThat(killed.find()).as("the lab's log").isTrue();
            assertThat(Integer.parseInt(killed.group(1)))
                    .as("lock connections terminated")
                    .isPositive();
        });
        assertThat(post("/api/lab/stop").statusCode()).isEqualTo(204);
    }

    private HttpResponse<String> post(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header(LabRequestGuard.HEADER, "1")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String lab() throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/lab"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
