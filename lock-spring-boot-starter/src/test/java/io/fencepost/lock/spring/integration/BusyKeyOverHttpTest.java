package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The quick start's settings (one attempt, {@code wait-time: 0s}) behind a web endpoint, in two instances of an
 * application on one PostgreSQL database: 50 concurrent requests on one key are each either served or answered
 * 409, never a 500.
 */
class BusyKeyOverHttpTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @Test
    void fiftyConcurrentRequestsOnOneKeyAcrossTwoInstancesGetNoServerError() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS invoice (id bigint PRIMARY KEY, status text NOT NULL,"
                + " fence bigint NOT NULL DEFAULT 0);"
                + " INSERT INTO invoice (id, status) VALUES (42, 'OPEN') ON CONFLICT DO NOTHING");
        try (ConfigurableApplicationContext first = start("billing-1");
                ConfigurableApplicationContext second = start("billing-2")) {
            List<Integer> ports = List.of(port(first), port(second));
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            ExecutorService clients = Executors.newFixedThreadPool(50);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> responses = new ArrayList<>();
            try {
                for (int i = 0; i < 50; i++) {
                    URI uri = URI.create("http://127.0.0.1:" + ports.get(i % 2) + "/invoices/42/settle");
                    responses.add(clients.submit(() -> {
                        go.await();
                        return http.send(
                                HttpRequest.newBuilder(uri)
                                        .POST(HttpRequest.BodyPublishers.noBody())
                                        .timeout(Duration.ofSeconds(30))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                    }));
                }
                go.countDown();
                List<HttpResponse<String>> answered = new ArrayList<>();
                for (Future<HttpResponse<String>> response : responses) {
                    answered.add(response.get(60, TimeUnit.SECONDS));
                }
                Map<Integer, Long> statuses = answered.stream()
                        .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));

                assertThat(statuses).as("statuses of 50 requests").containsOnlyKeys(200, 409);
                assertThat(statuses.get(200)).as("served").isPositive();
                assertThat(statuses.get(409)).as("answered busy").isPositive();
                assertThat(answered.stream()
                                .filter(r -> r.statusCode() == 409)
                                .map(r -> r.headers().firstValue("Content-Type").orElse(""))
                                .collect(Collectors.toSet()))
                        .containsExactly("application/problem+json");
            } finally {
                clients.shutdownNow();
            }
        }
    }

    private static ConfigurableApplicationContext start(String name) {
        return new SpringApplicationBuilder(Billing.class)
                .properties(Map.of(
                        "spring.application.name", name,
                        "server.port", "0",
                        "server.address", "127.0.0.1",
                        "spring.datasource.url", db.jdbcUrl(),
                        "spring.flyway.enabled", "false",
                        "fencepost.wait-time", "0s"))
                .run();
    }

    static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(InvoiceController.class)
    static class Billing {}

    @RestController
    static class InvoiceController {

        private final JdbcClient jdbc;

        InvoiceController(JdbcClient jdbc) {
            this.jdbc = jdbc;
        }

        @PostMapping("/invoices/{id}/settle")
        @DistributedLock(key = "'invoice:' + #id")
        @Transactional
        public String settle(@PathVariable long id) throws InterruptedException {
            long token = LockContext.current().orElseThrow().fencingToken();
            jdbc.sql("UPDATE invoice SET status = 'SETTLED', fence = :token WHERE id = :id AND fence <= :token")
                    .param("token", token)
                    .param("id", id)
                    .update();
            Thread.sleep(50); // the work that makes concurrent requests collide
            return "settled";
        }
    }
}
