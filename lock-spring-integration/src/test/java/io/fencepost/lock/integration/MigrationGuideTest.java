package io.fencepost.lock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.orders.LockingConfiguration;
import com.example.orders.OrderSettlement;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * docs/migrating-from-spring-integration.md as a user takes it: its Java example is this module's
 * {@code com.example.orders} sources, quoted verbatim; and the example, run as two instances (two application contexts,
 * each with its own pool and lock manager) on one PostgreSQL database, has one leader and settles an order from both
 * under one lock.
 */
class MigrationGuideTest {

    private static final Pattern CODE_BLOCK = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL);

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(4);

    private static Path root;

    private static String example;

    @BeforeAll
    static void readGuide() throws IOException {
        String page = "docs/migrating-from-spring-integration.md";
        Path path = Path.of("").toAbsolutePath();
        while (path != null && !Files.isRegularFile(path.resolve(page))) {
            path = path.getParent();
        }
        assertThat(path).as(page + " above the working directory").isNotNull();
        root = path;
        String guide = Files.readString(path.resolve(page), StandardCharsets.UTF_8);
        int start = guide.indexOf("<!-- example:start -->");
        int end = guide.indexOf("<!-- example:end -->");
        assertThat(start)
                .as("the guide's example between its markers")
                .isNotNegative()
                .isLessThan(end);
        example = guide.substring(start, end);
    }

    private static List<String> codeBlocks(String language) {
        List<String> blocks = new ArrayList<>();
        Matcher matcher = CODE_BLOCK.matcher(example);
        while (matcher.find()) {
            if (matcher.group(1).equals(language)) {
                blocks.add(matcher.group(2));
            }
        }
        return blocks;
    }

    private static String testSource(Class<?> type) throws IOException {
        return Files.readString(root.resolve("lock-spring-integration/src/test/java")
                .resolve(type.getName().replace('.', '/') + ".java"));
    }

    @Test
    void theGuidesJavaExampleIsTheTestedSourceVerbatim() throws IOException {
        assertThat(codeBlocks("java"))
                .as(
                        "the guide's java blocks, in order: copy lock-spring-integration/src/test/java/com/example/orders/*")
                .containsExactly(testSource(LockingConfiguration.class), testSource(OrderSettlement.class));
    }

    @Test
    void theGuidesDependenciesNameTheBomAtTheProjectsVersion() throws IOException {
        String xml = String.join("\n", codeBlocks("xml"));
        Matcher bomVersion = Pattern.compile("<artifactId>fencepost-bom</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(root.resolve("fencepost-bom/pom.xml")));
        assertThat(bomVersion.find()).isTrue();
        assertThat(xml)
                .contains("<artifactId>fencepost-bom</artifactId>")
                .contains("<version>" + bomVersion.group(1) + "</version>")
                .contains("<artifactId>lock-spring-integration</artifactId>");
    }

    @Test
    void twoInstancesOfTheExampleHaveOneLeaderAndSettleUnderOneLock() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS orders (id bigint PRIMARY KEY, settlements int NOT NULL DEFAULT 0,"
                + " fence bigint NOT NULL DEFAULT 0); INSERT INTO orders (id) VALUES (42) ON CONFLICT DO NOTHING");
        int callsPerInstance = 20;
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try (Instance first = new Instance();
                Instance second = new Instance()) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            Stream.of(first, second).filter(Instance::leads).count() == 1);

            List<Future<Boolean>> settled = new ArrayList<>();
            for (int i = 0; i < callsPerInstance; i++) {
                for (Instance instance : List.of(first, second)) {
                    settled.add(callers.submit(() -> instance.settlement().settle(42)));
                }
            }
            for (Future<Boolean> call : settled) {
                assertThat(call.get())
                        .as("no settlement came after a later holder's")
                        .isTrue();
            }
            assertThat(Stream.of(first, second).filter(Instance::leads).count())
                    .as("still one leader")
                    .isEqualTo(1);
        } finally {
            callers.shutdownNow();
        }
        assertThat(JdbcClient.create(db.dataSource())
                        .sql("SELECT settlements FROM orders WHERE id = 42")
                        .query(Integer.class)
                        .single())
                .isEqualTo(2 * callsPerInstance);
    }

    /** One instance of the application: its own pool, its own lock manager (the starter's bean, in Spring Boot). */
    private static final class Instance implements AutoCloseable {

        private final HikariDataSource pool = new HikariDataSource();

        private final PostgresLockManager locks;

        private final AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();

        Instance() {
            pool.setJdbcUrl(db.jdbcUrl());
            pool.setMaximumPoolSize(6);
            locks = PostgresLockManager.create(pool);
            context.registerBean(DataSource.class, () -> pool, definition -> definition.setDestroyMethodName(""));
            context.registerBean(JdbcClient.class, () -> JdbcClient.create(pool));
            context.registerBean(LockManager.class, () -> locks, definition -> definition.setDestroyMethodName(""));
            context.register(LockingConfiguration.class, OrderSettlement.class);
            context.refresh();
        }

        boolean leads() {
            return context.getBean(LockRegistryLeaderInitiator.class)
                    .getContext()
                    .isLeader();
        }

        OrderSettlement settlement() {
            return context.getBean(OrderSettlement.class);
        }

        @Override
        public void close() {
            context.close();
            locks.close();
            pool.close();
        }
    }
}
