package io.fencepost.lock.spring.actuate.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.jdbc.test.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * {@link LockStoreHealthIndicator} against a real PostgreSQL: UP with its details, DOWN when the database is
 * unreachable, stops answering or lacks the schema, and what a lock role with {@code synchronous_commit = off} or
 * without access to {@code pg_stat_replication} sees. How each detail is judged is {@code LockStoreHealthTest}'s
 * subject, in lock-jdbc.
 */
class LockStoreHealthIndicatorTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    /** A role of this test class only, dropped afterwards (roles are shared by the whole server). */
    private static final String ROLE =
            "fencepost_health_" + UUID.randomUUID().toString().substring(0, 8);

    private static final String PASSWORD = UUID.randomUUID().toString();

    @BeforeAll
    static void createSchemaAndLockRole() {
        PostgresLockManager.builder(db.dataSource()).build().close();
        db.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'; GRANT CONNECT ON DATABASE "
                + db.databaseName() + " TO " + ROLE
                + "; GRANT SELECT, INSERT, UPDATE, DELETE ON distributed_lock TO " + ROLE
                + "; GRANT USAGE ON SEQUENCE distributed_lock_fence_seq TO " + ROLE
                + "; ALTER ROLE " + ROLE + " IN DATABASE " + db.databaseName() + " SET synchronous_commit = off");
    }

    @AfterAll
    static void dropLockRole() {
        db.execute("DROP OWNED BY " + ROLE + "; REVOKE ALL ON DATABASE " + db.databaseName() + " FROM " + ROLE
                + "; DROP ROLE " + ROLE);
    }

    @Test
    void isUpWithTheClockOffsetAndTheDurabilitySettings() {
        Health health = indicator(db.dataSource(), "distributed_lock").health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        Map<String, Object> details = health.getDetails();
        assertThat(details)
                .containsEntry("table", "distributed_lock")
                .containsEntry("synchronousCommit", "on")
                .containsEntry("standbys", Map.of("connected", 0L, "asynchronous", 0L))
                .containsKeys("clockOffsetMillis", "roundTripMillis")
                .doesNotContainKeys("warnings", "notes", "error");
        long offset = (Long) details.get("clockOffsetMillis");
        long roundTrip = (Long) details.get("roundTripMillis");
        // Database and JVM share this machine's clock: the offset is within the measurement's own error.
        assertThat(Math.abs(offset)).isLessThanOrEqualTo(roundTrip + 5);
    }

    @Test
    void reportsThatTheLockRoleCommitsAsynchronouslyAndThatGrantsStayDurable() {
        Health health = indicator(dataSourceAs(ROLE), "distributed_lock").health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("synchronousCommit", "off");
        assertThat(notes(health))
                .singleElement(STRING)
                .contains("synchronous_commit is off for this role")
                .contains("commits grants and renewals with synchronous_commit=on regardless");
        assertThat(health.getDetails()).doesNotContainKey("warnings");
    }

    @Test
    void reportsStandbysAsUnknownWhenTheRoleMayNotReadThem() {
        db.execute("REVOKE SELECT ON pg_catalog.pg_stat_replication FROM PUBLIC");
        try {
            Health health = indicator(dataSourceAs(ROLE), "distributed_lock").health();

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .extractingByKey("standbys")
                    .isEqualTo(Map.of(
                            "connected",
                            "unknown",
                            "asynchronous",
                            "unknown",
                            "note",
                            "this role may not read pg_stat_replication"));
        } finally {
            db.execute("GRANT SELECT ON pg_catalog.pg_stat_replication TO PUBLIC");
        }
    }

    @Test
    void isDownWhenTheLockTableIsMissing() {
        Health health = indicator(db.dataSource(), "absent_lock").health();

        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails())
                .containsEntry("table", "absent_lock")
                .extractingByKey("error")
                .asString()
                .startsWith("the lock table 'absent_lock' is not on the connection's search_path");
    }

    @Test
    void goesDownWhenTheDatabaseBecomesUnreachableAndUpAgainWhenItIsBack() throws Exception {
        URI server = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(server.getHost(), server.getPort());
                HikariDataSource pool = pool(proxy)) {
            LockStoreHealthIndicator indicator = indicator(pool, "distributed_lock");
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

            proxy.stall();
            Health stalled = indicator.health();
            assertThat(stalled.getStatus())
                    .as("a database that stops answering")
                    .isEqualTo(Status.DOWN);
            assertThat(stalled.getDetails()).containsKey("error");

            proxy.resume();
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(
                            () -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));

            proxy.close();
            Health closed = indicator.health();
            assertThat(closed.getStatus())
                    .as("a database that refuses connections")
                    .isEqualTo(Status.DOWN);
            assertThat(closed.getDetails())
                    .containsEntry("table", "distributed_lock")
                    .containsKey("error");
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> notes(Health health) {
        return (List<String>) health.getDetails().get("notes");
    }

    private static LockStoreHealthIndicator indicator(DataSource dataSource, String table) {
        return new LockStoreHealthIndicator(dataSource, table, Duration.ofSeconds(1));
    }

    private static PGSimpleDataSource dataSourceAs(String role) {
        PGSimpleDataSource dataSource = db.unpooledDataSource();
        dataSource.setUser(role);
        dataSource.setPassword(PASSWORD);
        return dataSource;
    }

    private static HikariDataSource pool(TcpProxy proxy) {
        HikariConfig config = new HikariConfig();
        URI server = URI.create(db.jdbcUrl().substring("jdbc:".length()));
        config.setJdbcUrl(
                "jdbc:postgresql://127.0.0.1:" + proxy.port() + server.getRawPath() + "?" + server.getRawQuery());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(1_000);
        config.setValidationTimeout(250);
        config.addDataSourceProperty("connectTimeout", "2");
        config.addDataSourceProperty("socketTimeout", "5");
        config.setPoolName("fencepost-health-test");
        return new HikariDataSource(config);
    }
}
