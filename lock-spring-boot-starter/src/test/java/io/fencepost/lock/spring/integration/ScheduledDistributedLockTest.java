package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.OnLocked;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spi.LockListener;
import io.fencepost.lock.spring.autoconfigure.LockAutoConfiguration;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * ShedLock's use case: two instances of an application on one database run a {@code @Scheduled} job every second;
 * guarded by {@code @DistributedLock(onLocked = SKIP, minHoldTime = ...)}, it runs exactly once per tick.
 */
class ScheduledDistributedLockTest {

    /** Ticks checked: ten in the full tier, four in the default one (each tick is a second of waiting). */
    private static final int TICKS = "full".equals(System.getProperty("fencepost.test.tier")) ? 10 : 4;

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    LockAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.hikari.maximum-pool-size=3")
            .withUserConfiguration(JobConfiguration.class);

    @BeforeAll
    static void createTable() {
        db.execute("CREATE TABLE job_attempt (instance text NOT NULL, outcome text NOT NULL,"
                + " at timestamptz NOT NULL DEFAULT clock_timestamp())");
    }

    @Test
    void aScheduledJobOnTwoInstancesRunsOncePerTick() {
        JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
        contextRunner.withPropertyValues("test.instance=a").run(a -> {
            assertThat(a).hasNotFailed();
            contextRunner.withPropertyValues("test.instance=b").run(b -> {
                assertThat(b).hasNotFailed();
                // Count from the first tick that starts after both instances are up.
                Instant firstTick = jdbc.queryForObject(
                                "SELECT date_trunc('second', clock_timestamp()) + interval '1 second'", Timestamp.class)
                        .toInstant();
                await().atMost(Duration.ofSeconds(TICKS + 10)).until(() -> ticksWithARunSince(jdbc, firstTick) > TICKS);

                List<Map<String, Object>> ticks = jdbc.queryForList("""
                        SELECT date_trunc('second', at) AS tick,
                               count(*) FILTER (WHERE outcome = 'ran') AS runs,
                               count(*) FILTER (WHERE outcome = 'skipped') AS skips,
                               count(DISTINCT instance) AS instances
                          FROM job_attempt
                         WHERE at >= ?
                         GROUP BY 1
                         ORDER BY 1
                         LIMIT ?
                        """, Timestamp.from(firstTick), TICKS);
                assertThat(ticks).hasSize(TICKS);
                for (int i = 0; i < TICKS; i++) {
                    Map<String, Object> tick = ticks.get(i);
                    assertThat(((Timestamp) tick.get("tick")).toInstant())
                            .as("tick %d comes one second after the previous one", i)
                            .isEqualTo(firstTick.plusSeconds(i));
                    assertThat(tick)
                            .as("tick %s: one run, and the other instance skipped", tick.get("tick"))
                            .containsEntry("runs", 1L)
                            .containsEntry("skips", 1L)
                            .containsEntry("instances", 2L);
                }
            });
        });
    }

    private static int ticksWithARunSince(JdbcTemplate jdbc, Instant since) {
        return jdbc.queryForObject(
                "SELECT count(DISTINCT date_trunc('second', at)) FROM job_attempt WHERE outcome = 'ran' AND at >= ?",
                Integer.class,
                Timestamp.from(since));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class JobConfiguration {

        @Bean
        ReportJob reportJob(JdbcTemplate jdbc, @Value("${test.instance}") String instance) {
            return new ReportJob(jdbc, instance);
        }

        /** Records the attempts this instance skipped, in the same table, to show both instances tried. */
        @Bean
        LockListener skipRecorder(JdbcTemplate jdbc, @Value("${test.instance}") String instance) {
            return new LockListener() {
                @Override
                public void notAcquired(String name, String key, Duration waited, boolean skipped) {
                    jdbc.update("INSERT INTO job_attempt (instance, outcome) VALUES (?, 'skipped')", instance);
                }
            };
        }
    }

    static class ReportJob {

        private final JdbcTemplate jdbc;

        private final String instance;

        ReportJob(JdbcTemplate jdbc, String instance) {
            this.jdbc = jdbc;
            this.instance = instance;
        }

        // minHoldTime keeps the key locked past the other instance's attempt at the same tick, however fast the
        // job is, and frees it well before the next tick.
        @Scheduled(cron = "* * * * * *")
        @DistributedLock(key = "'nightly-report'", onLocked = OnLocked.SKIP, minHoldTime = "700ms")
        public void run() {
            jdbc.update("INSERT INTO job_attempt (instance, outcome) VALUES (?, 'ran')", instance);
        }
    }
}
