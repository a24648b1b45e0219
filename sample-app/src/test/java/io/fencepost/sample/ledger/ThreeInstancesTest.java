package io.fencepost.sample.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.sample.SampleApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Three instances of the application, each with its own pools and lock manager, on one database: the settlement
 * job runs exactly once per tick, and transfers sent to all three at once never create or destroy money.
 */
@Tag("full")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the transfer load first: ticks accumulate meanwhile
class ThreeInstancesTest {

    private static final int INSTANCES = 3;

    private static final Duration TICK = Duration.ofSeconds(2);

    private static final long INITIAL_TOTAL_CENTS = 600_000;

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    private static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startInstances() throws Exception {
        // Three applications in one JVM: Boot would initialize the shared logging system three times at once, and
        // leave every line printed thrice. Logback configures itself from logback-test.xml instead.
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
        ExecutorService starter = Executors.newFixedThreadPool(INSTANCES);
        try {
            List<Future<ConfigurableApplicationContext>> started = IntStream.rangeClosed(1, INSTANCES)
                    .mapToObj(i -> starter.submit(() -> new SpringApplicationBuilder(SampleApplication.class)
                            .run(
                                    // arguments, which override application.yml (default properties would not)
                                    "--spring.datasource.url=" + db.jdbcUrl(),
                                    "--server.port=0",
                                    "--sample.instance-name=instance-" + i,
                                    "--sample.settlement.cron=*/2 * * * * *",
                                    "--sample.settlement.min-hold-time=1s",
                                    "--sample.transfers.wait-time=10s",
                                    "--spring.main.banner-mode=off")))
                    .toList();
            for (Future<ConfigurableApplicationContext> instance : started) {
                instances.add(instance.get(60, TimeUnit.SECONDS));
            }
        } finally {
            starter.shutdownNow();
        }
    }

    @AfterAll
    static void stopInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
        System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
    }

    @Test
    @Order(2)
    void theSettlementJobRunsExactlyOncePerTick() {
        JdbcClient jdbc = JdbcClient.create(db.dataSource());
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> jdbc.sql("SELECT count(DISTINCT tick) FROM settlement_run")
                                .query(Long.class)
                                .single()
                        >= 5);

        List<Map<String, Object>> ticks = jdbc.sql(
                        "SELECT tick, count(*) AS runs, string_agg(instance, ',') AS instances"
                                + " FROM settlement_run GROUP BY tick ORDER BY tick")
                .query()
                .listOfRows();
        assertThat(ticks)
                .allSatisfy(tick -> assertThat(((Number) tick.get("runs")).longValue())
                        .as("runs of tick %s (by %s)", tick.get("tick"), tick.get("instances"))
                        .isEqualTo(1));
        // No tick went missing either: consecutive runs are one period apart.
        List<Instant> slots = jdbc.sql("SELECT tick FROM settlement_run ORDER BY tick")
                .query((rs, row) -> rs.getObject(1, OffsetDateTime.class).toInstant())
                .list();
        for (int i = 1; i < slots.size(); i++) {
            assertThat(Duration.between(slots.get(i - 1), slots.get(i)))
                    .as("gap before tick %s", slots.get(i))
                    .isEqualTo(TICK);
        }
    }

    @Test
    @Order(1)
    void concurrentTransfersThroughAllInstancesNeverLoseMoney() throws Exception {
        List<String> accounts = List.of("alice", "bob", "carol", "dave");
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        int threads = 12;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        ExecutorService load = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String base = "http://localhost:" + port(instances.get(t % INSTANCES));
                clients.add(load.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int sent = 0; sent < 200 && System.nanoTime() < end; sent++) {
                        String from = accounts.get(random.nextInt(accounts.size()));
                        String to = accounts.get(random.nextInt(accounts.size()));
                        if (from.equals(to)) {
                            continue;
                        }
                        int status = transfer(base, from, to, 1 + random.nextInt(2_000));
                        statuses.computeIfAbsent(status, s -> new AtomicInteger())
                                .incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> client : clients) {
                client.get(60, TimeUnit.SECONDS);
            }
        } finally {
            load.shutdownNow();
        }

        // 409: not enough money; 503: an account stayed busy for the whole wait. Never a 500.
        assertThat(statuses.keySet()).as("HTTP statuses %s", statuses).isSubsetOf(201, 409, 503);
        assertThat(statuses.get(201).get()).as("transfers booked").isGreaterThan(20);

        JdbcClient jdbc = JdbcClient.create(db.dataSource());
        assertThat(jdbc.sql("SELECT sum(balance_cents) FROM account")
                        .query(Long.class)
                        .single())
                .as("the sum of all balances")
                .isEqualTo(INITIAL_TOTAL_CENTS);
        assertThat(jdbc.sql("""
                        SELECT a.id FROM account a
                          LEFT JOIN ledger_entry e ON e.account_id = a.id
                         GROUP BY a.id, a.balance_cents
                        HAVING a.balance_cents <> 100000 + coalesce(sum(e.amount_cents), 0)
                        """).query(String.class).list())
                .as("accounts whose balance disagrees with their ledger entries")
                .isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM transfer").query(Long.class).single())
                .as("every booked transfer is recorded once")
                .isEqualTo(statuses.get(201).get());
    }

    private static int transfer(String base, String from, String to, int amountCents) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/api/transfers"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amountCents\":" + amountCents + "}"))
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int port(ConfigurableApplicationContext instance) {
        return instance.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }
}
