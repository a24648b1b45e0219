package io.fencepost.lock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.reminders.InvoiceReminders;
import com.example.reminders.SchedulingConfiguration;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LockListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * docs/migrating-from-shedlock.md as a user takes it: its Java example is this module's {@code com.example.reminders}
 * sources, quoted verbatim; its Maven snippet names what the BOM manages; and the example, run as two instances (two
 * application contexts, each with its own pool and lock manager) on one PostgreSQL database, runs the task once per
 * tick.
 */
class MigrationGuideTest {

    private static final Pattern CODE_BLOCK = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL);

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase(4);

    private static Path root;

    private static String example;

    @BeforeAll
    static void readGuide() throws IOException {
        Path path = Path.of("").toAbsolutePath();
        while (path != null && !Files.isRegularFile(path.resolve("docs/migrating-from-shedlock.md"))) {
            path = path.getParent();
        }
        assertThat(path)
                .as("docs/migrating-from-shedlock.md above the working directory")
                .isNotNull();
        root = path;
        String guide = Files.readString(path.resolve("docs/migrating-from-shedlock.md"), StandardCharsets.UTF_8);
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
        return Files.readString(root.resolve("lock-shedlock/src/test/java")
                .resolve(type.getName().replace('.', '/') + ".java"));
    }

    @Test
    void theGuidesJavaExampleIsTheTestedSourceVerbatim() throws IOException {
        assertThat(codeBlocks("java"))
                .as("the guide's java blocks, in order: copy lock-shedlock/src/test/java/com/example/reminders/*")
                .containsExactly(testSource(SchedulingConfiguration.class), testSource(InvoiceReminders.class));
    }

    @Test
    void theGuidesDependenciesAreManagedByTheBomAtTheTestedShedLockVersion() throws IOException {
        String xml = String.join("\n", codeBlocks("xml"));
        assertThat(xml)
                .contains("<artifactId>fencepost-bom</artifactId>")
                .contains("<artifactId>lock-shedlock</artifactId>")
                .contains("<artifactId>shedlock-spring</artifactId>");
        String bom = Files.readString(root.resolve("fencepost-bom/pom.xml"));
        Matcher bomVersion = Pattern.compile("<artifactId>fencepost-bom</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(bom);
        assertThat(bomVersion.find()).isTrue();
        assertThat(xml)
                .as("the BOM at the project's version")
                .contains("<version>" + bomVersion.group(1) + "</version>");
        String parent = Files.readString(root.resolve("pom.xml"));
        assertThat(bom).contains("<artifactId>shedlock-spring</artifactId>");
        assertThat(shedLockVersion(bom))
                .as("the BOM's ShedLock version is the one lock-shedlock is built and tested with")
                .isEqualTo(shedLockVersion(parent));
    }

    private static String shedLockVersion(String pom) {
        Matcher version =
                Pattern.compile("<shedlock.version>([^<]+)</shedlock.version>").matcher(pom);
        assertThat(version.find()).as("a shedlock.version property").isTrue();
        return version.group(1);
    }

    @Test
    void twoInstancesOfTheExampleRunTheTaskOncePerTick() {
        db.execute("CREATE TABLE IF NOT EXISTS reminder_run (fence bigint PRIMARY KEY, ran_at timestamptz NOT NULL)");
        ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
        try (Instance first = new Instance("first", attempts);
                Instance second = new Instance("second", attempts)) {
            // Every other second both instances fire at once; a run holds the lock for 1.5 s at least, so that the
            // instance that fires a little later finds it busy even when the run was quicker.
            await().atMost(Duration.ofSeconds(30)).until(() -> ticks(attempts).size() >= 5);
        }

        Map<Instant, List<Attempt>> byTick = ticks(attempts);
        byTick.forEach((tick, seen) -> {
            assertThat(seen.stream().filter(Attempt::ran))
                    .as("tick %s: one run across both instances (%s)", tick, seen)
                    .hasSize(1);
            assertThat(seen)
                    .as("tick %s: both instances tried (%s)", tick, seen)
                    .extracting(Attempt::instance)
                    .containsExactlyInAnyOrder("first", "second");
        });
        List<Long> fences = JdbcClient.create(db.dataSource())
                .sql("SELECT fence FROM reminder_run ORDER BY ran_at")
                .query(Long.class)
                .list();
        assertThat(fences)
                .as("one row per run, fencing tokens growing from run to run")
                .hasSize((int) attempts.stream().filter(Attempt::ran).count())
                .isSorted();
    }

    /** The ticks in which both instances have tried, by the second they fired in. */
    private static Map<Instant, List<Attempt>> ticks(ConcurrentLinkedQueue<Attempt> attempts) {
        Map<Instant, List<Attempt>> byTick = attempts.stream()
                .collect(Collectors.groupingBy(
                        attempt -> attempt.at().truncatedTo(ChronoUnit.SECONDS), TreeMap::new, Collectors.toList()));
        byTick.values().removeIf(seen -> seen.size() < 2);
        return byTick;
    }

    /** One instance's attempt to run the task: it ran, or found the lock busy and skipped. */
    private record Attempt(String instance, Instant at, boolean ran) {}

    /**
     * One instance of the application: its own pool, its own lock manager (the starter's bean, in a Spring Boot
     * application), and the guide's two classes; the task every other second, instead of every five minutes.
     */
    private static final class Instance implements AutoCloseable {

        private final HikariDataSource pool = new HikariDataSource();

        private final PostgresLockManager locks;

        private final AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();

        Instance(String name, ConcurrentLinkedQueue<Attempt> attempts) {
            pool.setJdbcUrl(db.jdbcUrl());
            pool.setMaximumPoolSize(4);
            locks = PostgresLockManager.builder(pool)
                    .listener(new LockListener() {
                        @Override
                        public void acquired(String lockName, Lease lease, Duration waited) {
                            attempts.add(new Attempt(name, Instant.now(), true));
                        }

                        @Override
                        public void notAcquired(String lockName, String key, Duration waited, boolean skipped) {
                            attempts.add(new Attempt(name, Instant.now(), false));
                        }
                    })
                    .build();
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "test",
                            Map.of("reminders.cron", "*/2 * * * * *", "reminders.lock-at-least-for", "1500ms")));
            context.registerBean(DataSource.class, () -> pool, definition -> definition.setDestroyMethodName(""));
            context.registerBean(JdbcClient.class, () -> JdbcClient.create(pool));
            context.registerBean(LockManager.class, () -> locks, definition -> definition.setDestroyMethodName(""));
            context.register(SchedulingConfiguration.class, InvoiceReminders.class);
            context.refresh();
        }

        @Override
        public void close() {
            context.close();
            locks.close();
            pool.close();
        }
    }
}
