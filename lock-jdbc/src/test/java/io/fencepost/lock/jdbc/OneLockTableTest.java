package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.core.EngineBuilder;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One lock table per application: a manager refuses its table while another lock table of its application is in use
 * in the database, unless allowed. Each test works with an application name of its own, so that the other tests'
 * tables in the shared database do not count.
 */
class OneLockTableTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static String unique(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    }

    private static PostgresLockManager.Builder manager(String application, String table) {
        return PostgresLockManager.builder(db.dataSource())
                .tableName(table)
                .applicationName(application)
                .holderName(EngineBuilder.holderNameOf(application));
    }

    @Test
    void aSecondTableOfTheSameApplicationIsRefusedBeforeItIsCreated() throws SQLException {
        String application = unique("orders");
        String table = unique("orders_lock_");
        String typo = unique("orders_lokc_");
        try (PostgresLockManager first = manager(application, table).build();
                Lease held = first.acquire("invoice:1", LockOptions.of(Duration.ofSeconds(30)))) {

            assertThatThrownBy(() -> manager(application, typo).build())
                    .isInstanceOfSatisfying(LockTableSplitException.class, e -> {
                        assertThat(e.tableName()).isEqualTo(typo);
                        assertThat(e.applicationName()).isEqualTo(application);
                        assertThat(e.otherTables()).containsExactly("public." + table);
                    })
                    .hasMessageStartingWith("fencepost refuses the lock table '" + typo + "': another Fencepost"
                            + " lock table is in use by application '" + application + "' in this database: public."
                            + table + " (1 live lease, the latest held by " + application + "@")
                    .hasMessageContaining("fencepost.jdbc.table-name")
                    .hasMessageContaining("fencepost.jdbc.allow-other-lock-tables=true");
            assertThat(exists(typo)).as("the refused table was not created").isFalse();
        }
    }

    @Test
    void aTableWhereNoLeaseWasEverTakenIsInUseWhileItsManagerRuns() throws SQLException {
        String application = unique("orders");
        String table = unique("orders_lock_");
        String typo = unique("orders_lokc_");
        try (PostgresLockManager first = manager(application, table).build()) {
            assertThat(leases(table)).as("no lease was ever taken").isZero();

            assertThatThrownBy(() -> manager(application, typo).build())
                    .isInstanceOfSatisfying(
                            LockTableSplitException.class,
                            e -> assertThat(e.otherTables()).containsExactly("public." + table))
                    .hasMessageContaining(
                            "public." + table + " (1 lock manager running on it, the latest " + application + "@");
            assertThat(exists(typo)).as("the refused table was not created").isFalse();
        }
    }

    @Test
    void aManagerThatClosedLeavesItsTableIdleAndARefreshMovesItsRowWithoutANewToken() throws SQLException {
        String application = unique("orders");
        String table = unique("orders_lock_");
        manager(application, table).build().close();
        try (PostgresLockManager second =
                manager(application, unique("orders_new_")).build()) {
            assertThat(second.tableName()).startsWith("orders_new_");
        }

        Presence presence = new Presence(
                new StatementRunner(db.dataSource(), Duration.ofSeconds(5)),
                TableName.of(table),
                application + "@test");
        presence.mark();
        String before = presenceRow(table);
        presence.mark();

        assertThat(presenceRow(table))
                .as("one row, the same fencing token, a later end")
                .isNotEqualTo(before)
                .startsWith(before.substring(0, before.indexOf('|') + 1));
        presence.close();
        assertThat(presenceRow(table)).as("closing deletes it").isEmpty();
    }

    @Test
    void ofTwoManagersStartingTogetherOnTwoEmptyTablesAtLeastOneRefuses() throws Exception {
        String application = unique("orders");
        List<String> tables = List.of(unique("orders_lock_"), unique("orders_lokc_"));
        CyclicBarrier together = new CyclicBarrier(tables.size());
        ExecutorService starts = Executors.newFixedThreadPool(tables.size());
        try {
            List<Future<PostgresLockManager>> started = new ArrayList<>();
            for (String table : tables) {
                started.add(starts.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    return manager(application, table).build();
                }));
            }
            int refused = 0;
            // Closed only once both have started: a closed manager deletes its presence row, and a table nobody runs
            // on is not in use, so closing the first early would let the second start, rightly.
            List<PostgresLockManager> running = new ArrayList<>();
            try {
                for (Future<PostgresLockManager> start : started) {
                    try {
                        running.add(start.get(60, TimeUnit.SECONDS));
                    } catch (ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(LockTableSplitException.class);
                        refused++;
                    }
                }
            } finally {
                running.forEach(PostgresLockManager::close);
            }

            assertThat(refused).isPositive();
        } finally {
            starts.shutdownNow();
        }
    }

    @Test
    void allowedItStartsAndItsHealthNamesTheOtherTable() {
        String application = unique("orders");
        String table = unique("orders_lock_");
        String other = unique("orders_other_");
        try (PostgresLockManager first = manager(application, table).build();
                Lease held = first.acquire("invoice:1", LockOptions.of(Duration.ofSeconds(30)));
                PostgresLockManager second =
                        manager(application, other).allowOtherLockTables(true).build()) {

            LockStoreHealth.Report report = new LockStoreHealth(db.dataSource(), other, Duration.ofSeconds(5))
                    .withOtherLockTablesOf(second)
                    .check();

            assertThat(report.up()).isTrue();
            assertThat(report.details().get("otherLockTables"))
                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                    .singleElement()
                    .asString()
                    .startsWith("public." + table + " (1 live lease");
            assertThat(report.details().get("warnings"))
                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                    .anySatisfy(warning ->
                            assertThat(warning).asString().contains("public." + table, "do not exclude each other"));
        }
    }

    @Test
    void anotherApplicationsTableDoesNotCount() {
        String table = unique("billing_lock_");
        try (PostgresLockManager billing = manager(unique("billing"), table).build();
                Lease held = billing.acquire("invoice:1", LockOptions.of(Duration.ofSeconds(30)));
                PostgresLockManager orders =
                        manager(unique("orders"), unique("orders_lock_")).build()) {
            assertThat(orders.tableName()).startsWith("orders_lock_");
        }
    }

    @Test
    void aLeaseThatEndedWithin24HoursCountsAndAnOlderOneOrAReleasedOneDoesNot() {
        String application = unique("reports");
        String table = unique("reports_lock_");
        try (PostgresLockManager first = manager(application, table).build()) {
            first.acquire("released", LockOptions.of(Duration.ofSeconds(30))).release();
            // not renewed, so that its end stays where the test puts it, as a holder that stopped leaves it
            first.acquire(
                    "stopped",
                    LockOptions.builder()
                            .leaseTime(Duration.ofSeconds(30))
                            .renew(false)
                            .build());
            db.execute("UPDATE " + table + " SET expires_at = now() - interval '25 hours'");
            try (PostgresLockManager unrelated =
                    manager(application, unique("reports_new_")).build()) {
                assertThat(unrelated.tableName()).startsWith("reports_new_");
            }

            db.execute("UPDATE " + table + " SET expires_at = now() - interval '23 hours'");
            assertThatThrownBy(
                            () -> manager(application, unique("reports_other_")).build())
                    .isInstanceOf(LockTableSplitException.class)
                    .hasMessageContaining("public." + table
                            + " (1 lease ended in the last 24 hours, the latest held by " + application + "@");
        }
    }

    @Test
    void theSameTableNameInAnotherSchemaIsAnotherTable() {
        String application = unique("ledger");
        String table = unique("ledger_lock_");
        String schema = unique("s_");
        db.execute("CREATE SCHEMA " + schema);
        PGSimpleDataSource elsewhere = db.unpooledDataSource();
        elsewhere.setCurrentSchema(schema);
        try (PostgresLockManager first = manager(application, table).build();
                Lease held = first.acquire("k", LockOptions.of(Duration.ofSeconds(30)))) {
            assertThatThrownBy(() -> PostgresLockManager.builder(elsewhere)
                            .tableName(table)
                            .applicationName(application)
                            .build())
                    .isInstanceOfSatisfying(
                            LockTableSplitException.class,
                            e -> assertThat(e.otherTables()).containsExactly("public." + table));
        }
    }

    @Test
    void withoutAnApplicationNameAnyRecentLeaseCountsButAUsersLookalikeTableDoesNot() {
        try (PostgresTestDatabase own = new PostgresTestDatabase(2).start()) {
            own.execute(
                    "CREATE TABLE lookalike (lock_key text, owner_token uuid, holder text, fencing_token bigint,"
                            + " acquired_at timestamptz, expires_at timestamptz);"
                            + " INSERT INTO lookalike VALUES ('k', gen_random_uuid(), 'x@h:1', 1, now(), now() + interval '1h')");
            try (PostgresLockManager first = PostgresLockManager.builder(own.dataSource())
                            .tableName("first_lock")
                            .holderName("someone-else")
                            .build();
                    Lease held = first.acquire("k", LockOptions.of(Duration.ofSeconds(30)))) {
                assertThatThrownBy(() -> PostgresLockManager.builder(own.dataSource())
                                .tableName("second_lock")
                                .build())
                        .isInstanceOfSatisfying(LockTableSplitException.class, e -> {
                            assertThat(e.applicationName()).isNull();
                            assertThat(e.otherTables()).containsExactly("public.first_lock");
                        })
                        .hasMessageContaining("no application name is set, so any lease counts");
            }
        }
    }

    @Test
    void aLockTableTheRoleMayNotReadIsNotLookedAt() {
        String role = unique("fencepost_census_");
        try (PostgresTestDatabase own = new PostgresTestDatabase(2).start()) {
            own.execute("CREATE ROLE " + role + " LOGIN; GRANT CONNECT ON DATABASE " + own.databaseName() + " TO "
                    + role + "; CREATE SCHEMA " + role + " AUTHORIZATION " + role);
            try (PostgresLockManager first = PostgresLockManager.builder(own.dataSource())
                            .tableName("first_lock")
                            .build();
                    Lease held = first.acquire("k", LockOptions.of(Duration.ofSeconds(30)))) {
                PGSimpleDataSource asRole = own.unpooledDataSource();
                asRole.setUser(role);
                asRole.setCurrentSchema(role);
                try (PostgresLockManager second = PostgresLockManager.builder(asRole)
                        .tableName("second_lock")
                        .build()) {
                    assertThat(second.tableName()).isEqualTo("second_lock");
                }
            } finally {
                own.execute(
                        "DROP OWNED BY " + role + "; REVOKE ALL ON DATABASE " + own.databaseName() + " FROM " + role);
            }
        } finally {
            db.execute("DROP ROLE IF EXISTS " + role);
        }
    }

    /** The presence rows of {@code table}, as {@code fencing_token|expires_at} lines; empty without any. */
    private static String presenceRow(String table) throws SQLException {
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT string_agg(fencing_token || '|' || expires_at, ',')"
                        + " FROM " + table + " WHERE lock_key LIKE 'fencepost-presence/%'")) {
            rows.next();
            return rows.getString(1) == null ? "" : rows.getString(1);
        }
    }

    /** The lease rows of {@code table}, presence rows left out. */
    private static long leases(String table) throws SQLException {
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT count(*) FROM " + table + " WHERE lock_key NOT LIKE 'fencepost-presence/%'")) {
            row.next();
            return row.getLong(1);
        }
    }

    private static boolean exists(String table) throws SQLException {
        try (Connection connection = db.adminDataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_class WHERE relname IN ('" + table
                        + "', '" + table + "_fence_seq')")) {
            row.next();
            return row.getLong(1) > 0;
        }
    }
}
