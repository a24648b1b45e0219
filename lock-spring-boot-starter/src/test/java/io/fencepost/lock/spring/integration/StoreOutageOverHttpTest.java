package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The lock store unreachable behind a web endpoint, with HikariCP's default settings (a 30 s connection timeout): the
 * lock fails closed within the statement timeout, the method does not run, and the caller is answered 503 with
 * {@code Retry-After} (the service is unavailable for a moment), never a 500; the health answers {@code DOWN} within a
 * second.
 */
class StoreOutageOverHttpTest {

    /** The statement timeout the application is given. */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    /** One application through both outages, in turn: one that stops answering, then one that refuses. */
    @Test
    void anUnreachableStoreIsAnswered503WithinTheStatementTimeoutAndTheHealthIsDownAtOnce() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS invoice (id bigint PRIMARY KEY, status text NOT NULL,"
                + " fence bigint NOT NULL DEFAULT 0);"
                + " INSERT INTO invoice (id, status) VALUES (42, 'OPEN'), (43, 'OPEN') ON CONFLICT DO NOTHING");
        URI server = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(server.getHost(), server.getPort());
                ConfigurableApplicationContext app = start(proxy, server)) {
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            URI settle = URI.create("http://127.0.0.1:" + BusyKeyOverHttpTest.port(app) + "/invoices/42/settle");
            assertThat(send(http, settle).statusCode())
                    .as("with the store reachable")
                    .isEqualTo(200);

            URI health = URI.create("http://127.0.0.1:" + BusyKeyOverHttpTest.port(app) + "/actuator/health");
            assertThat(get(http, health).statusCode()).as("healthy").isEqualTo(200);

            proxy.stall();
            answers503AndDown(http, settle, health);
            proxy.resume();
            // Invoice 42's acquire may still reach the database once the stall ends and take the key for a lease
            // whose grant nobody saw (README, Gotchas): the refusing outage goes through another key.
            URI other = URI.create("http://127.0.0.1:" + BusyKeyOverHttpTest.port(app) + "/invoices/43/settle");
            await().atMost(Duration.ofSeconds(20)).until(() -> send(http, other).statusCode() == 200);
            assertThat(get(http, health).statusCode()).as("healthy again").isEqualTo(200);

            proxy.refuse();
            answers503AndDown(http, other, health);
        }
    }

    private static void answers503AndDown(HttpClient http, URI settle, URI health) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> answer = send(http, settle);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // Had the method run, its own statement (through the same stalled database) would have failed it: a 500.
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(took).as("answered within the statement timeout + 1 s").isLessThan(TIMEOUT.plusSeconds(1));
        assertThat(answer.headers().firstValue("Retry-After")).contains("1");
        assertThat(answer.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(answer.body()).contains("Lock store unavailable").doesNotContain("invoice:");
        for (URI component : List.of(URI.create(health + "/locks"), health)) {
            start = System.nanoTime();
            HttpResponse<String> down = get(http, component);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("%s answered within 1 s", component)
                    .isLessThan(Duration.ofSeconds(1));
            assertThat(down.statusCode()).as("%s", component).isEqualTo(503);
            assertThat(down.body()).contains("DOWN");
        }
    }

    private static HttpResponse<String> get(HttpClient http, URI uri) throws Exception {
        return http.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> send(HttpClient http, URI uri) throws Exception {
        return http.send(
                HttpRequest.newBuilder(uri)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(60))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static ConfigurableApplicationContext start(TcpProxy proxy, URI server) {
        return new SpringApplicationBuilder(BusyKeyOverHttpTest.Billing.class)
                .properties(Map.of(
                        "server.port",
                        "0",
                        "server.address",
                        "127.0.0.1",
                        "spring.datasource.url",
                        "jdbc:postgresql://127.0.0.1:" + proxy.port() + server.getRawPath() + "?"
                                + server.getRawQuery(),
                        // HikariCP's defaults otherwise. Boot's own db indicator waits on the pool as long as the
                        // pool lets it (30 s): see docs/observability.md.
                        "management.health.db.enabled",
                        "false",
                        "management.endpoint.health.show-components",
                        "always",
                        "spring.flyway.enabled",
                        "false",
                        "fencepost.jdbc.statement-timeout",
                        "2s",
                        "fencepost.wait-time",
                        "0s"))
                .run();
    }
}
