package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Acceptance 1 of the foundation: two JVM processes with eight threads each race on one key for 2,000 critical
 * sections of a non-atomic read-modify-write. Any overlap of two holders loses an update.
 */
@Tag("full")
class TwoProcessRaceTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final int PROCESSES = 2;

    private static final int THREADS = 8;

    private static final int ITERATIONS = 125;

    @Test
    void twoProcessesOfEightThreadsNeverOverlapAndTokensIncreaseInGrantOrder() throws Exception {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE race_counter (id int PRIMARY KEY, value bigint NOT NULL)");
            statement.execute("INSERT INTO race_counter VALUES (1, 0)");
            statement.execute("CREATE TABLE race_grant (seq bigserial PRIMARY KEY, token bigint NOT NULL,"
                    + " thread text NOT NULL)");
        }
        // Apply the schema once, so the workers only validate it.
        PostgresLockManager.create(db.dataSource()).close();

        List<Process> workers = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            workers.add(new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            RaceWorker.class.getName(),
                            db.jdbcUrl(),
                            "race:counter",
                            Integer.toString(THREADS),
                            Integer.toString(ITERATIONS),
                            "p" + p)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .start());
        }
        for (Process worker : workers) {
            assertThat(worker.waitFor(5, TimeUnit.MINUTES))
                    .as("worker finished in time")
                    .isTrue();
            assertThat(worker.exitValue()).as("worker exit code").isZero();
        }

        int sections = PROCESSES * THREADS * ITERATIONS;
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("SELECT value FROM race_counter WHERE id = 1")) {
                rs.next();
                assertThat(rs.getLong(1)).as("no update was lost").isEqualTo(sections);
            }
            List<Long> tokens = new ArrayList<>();
            List<String> processes = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery("SELECT token, thread FROM race_grant ORDER BY seq")) {
                while (rs.next()) {
                    tokens.add(rs.getLong(1));
                    processes.add(rs.getString(2).substring(0, 2));
                }
            }
            assertThat(tokens).hasSize(sections).isSorted().doesNotHaveDuplicates();
            assertThat(processes).as("both processes held the key").contains("p0", "p1");
        }
    }
}
