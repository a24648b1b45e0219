package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The lock store unreachable behind a web endpoint: the lock fails closed, the method does not run, and the caller
 * is answered 503 with {@code Retry-After} (the service is unavailable for a moment), never a 500.
 */
class StoreOutageOverHttpTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @Test
    void anUnreachableStoreIsAnswered503WithRetryAfterAndTheMethodDoesNotRun() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS invoice (id bigint PRIMARY KEY, status text NOT NULL,"
                + " fence bigint NOT NULL DEFAULT 0);"
                + " INSERT INTO invoice (id, status) VALUES (42, 'OPEN') ON CONFLICT DO NOTHING");
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

            proxy.stall();
            HttpResponse<String> answer = send(http, settle);

            // Had the method run, its own statement (through the same stalled database) would have failed it: a 500.
            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(answer.headers().firstValue("Retry-After")).contains("1");
            assertThat(answer.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(answer.body()).contains("Lock store unavailable").doesNotContain("invoice:42");
            proxy.resume();
        }
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
                        "spring.datasource.hikari.connection-timeout",
                        "1000",
                        "spring.datasource.hikari.validation-timeout",
                        "250",
                        "spring.flyway.enabled",
                        "false",
                        "fencepost.jdbc.statement-timeout",
                        "1s",
                        "fencepost.wait-time",
                        "0s"))
                .run();
    }
}
