package io.fencepost.lock.reliability.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Owner tokens are secrets: they must never appear in a log line at any level, in an exception or in a
 * {@code toString}. A child JVM ({@link LogProbe}) runs every path with every logger at its most verbose; the owner
 * tokens it used are collected by a trigger on the lock table (so the probe never reads them itself) and searched
 * for in everything it printed, in every spelling of a UUID.
 *
 * <p>One exception, reported rather than failed: PostgreSQL's JDBC driver at FINEST traces the bind parameters
 * of every statement, owner tokens included. That is the driver's wire trace, outside Fencepost; see
 * docs/reliability.md.
 */
@Tag("full")
class SecretsInLogsTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    @Test
    void ownerTokensNeverAppearInLogsExceptionsOrToString() throws Exception {
        PostgresLockManager.create(db.dataSource()).close();
        db.execute("""
                CREATE TABLE probe_owner_token (token uuid NOT NULL);
                CREATE FUNCTION probe_capture_owner() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO probe_owner_token VALUES (NEW.owner_token);
                    RETURN NULL;
                END $$;
                CREATE TRIGGER probe_capture_owner AFTER INSERT OR UPDATE OF owner_token ON distributed_lock
                    FOR EACH ROW EXECUTE FUNCTION probe_capture_owner();
                """);
        Path output = Files.createTempFile("fencepost-log-probe", ".log");
        try {
            Process probe = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
                            "-Dorg.slf4j.simpleLogger.showLogName=true",
                            "-Dorg.slf4j.simpleLogger.logFile=System.out",
                            "-cp",
                            System.getProperty("java.class.path"),
                            LogProbe.class.getName(),
                            db.jdbcUrl())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            assertThat(probe.waitFor(120, TimeUnit.SECONDS))
                    .as("the probe finished")
                    .isTrue();
            List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
            assertThat(lines).as("the probe ran to its end").contains("PROBE DONE");

            List<String> secrets = ownerTokens();
            assertThat(secrets).as("owner tokens used by the probe").hasSizeGreaterThan(10);
            assertThat(lines.stream().filter(l -> l.startsWith("JUL io.fencepost")))
                    .as("fencepost's own log records were captured")
                    .isNotEmpty();
            assertThat(lines.stream().filter(l -> l.contains("org.flywaydb")))
                    .as("Flyway's records were captured")
                    .isNotEmpty();

            List<String> leaks = new ArrayList<>();
            int driverTraceLeaks = 0;
            for (String line : lines) {
                for (String secret : secrets) {
                    if (contains(line, secret)) {
                        if (line.startsWith("JUL org.postgresql")) {
                            driverTraceLeaks++;
                        } else {
                            leaks.add(line);
                        }
                        break;
                    }
                }
            }
            System.out.printf(
                    "log probe: %d lines, %d owner tokens searched, %d leaks outside the driver's FINEST wire trace,"
                            + " %d driver trace lines carrying an owner token%n",
                    lines.size(), secrets.size(), leaks.size(), driverTraceLeaks);
            assertThat(leaks).as("lines carrying an owner token").isEmpty();
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private static boolean contains(String line, String token) {
        String lower = line.toLowerCase(Locale.ROOT);
        return lower.contains(token) || lower.contains(token.replace("-", ""));
    }

    private static List<String> ownerTokens() throws Exception {
        List<String> tokens = new ArrayList<>();
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT DISTINCT token::text FROM probe_owner_token")) {
            while (rows.next()) {
                tokens.add(rows.getString(1).toLowerCase(Locale.ROOT));
            }
        }
        return tokens;
    }
}
