package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The lock store unreachable behind a web endpoint: the lock fails closed, the method does not run, and the caller
 * is answered 503 with {@code Retry-After} (the service is unavailable for a moment), never a 500.
 */
class StoreOutageOverHttpTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @Test
    void anUnreachableStoreIsAnswered503WithRetryAfterAndTheMethodDoesNotRun() throws Exception {
        URI server = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(server.getHost(), server.getPort());
                ConfigurableApplicationContext app = start(proxy, server)) {
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            URI settle = URI.create("http://127.0.0.1:" + port(app) + "/invoices/42/settle");
            assertThat(send(http, settle).statusCode())
                    .as("with the store reachable")
                    .isEqualTo(200);

            proxy.stall();
            HttpResponse<String> answer = send(http, settle);

            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(answer.headers().firstValue("Retry-After")).contains("1");
            assertThat(answer.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(answer.body()).contains("Lock store unavailable").doesNotContain("invoice:42");
            assertThat(app.getBean(InvoiceController.class).runs())
                    .as("runs of the locked method")
                    .isEqualTo(1);
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
        return new SpringApplicationBuilder(Billing.class)
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

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(InvoiceController.class)
    static class Billing {}

    @RestController
    static class InvoiceController {

        private final AtomicInteger runs = new AtomicInteger();

        /** A method, not the field: the bean is a proxy (the lock's advice). */
        public int runs() {
            return runs.get();
        }

        @PostMapping("/invoices/{id}/settle")
        @DistributedLock(key = "'invoice:' + #id")
        public String settle(@PathVariable long id) {
            runs.incrementAndGet();
            return "settled";
        }
    }
}
