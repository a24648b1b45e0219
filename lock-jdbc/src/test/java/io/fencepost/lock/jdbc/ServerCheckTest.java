package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.jdbc.test.DelegatingDataSource;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The start-up check of the server: what it refuses by what the server says about itself (unit level, for databases
 * that cannot run here), and on real PostgreSQL the read-only and no-op advisory lock cases it can simulate.
 */
@Tag("server-version")
class ServerCheckTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    private static final String POSTGRES = "PostgreSQL 15.14 (Debian 15.14-0+deb12u1) on x86_64-pc-linux-gnu, compiled"
            + " by gcc (Debian 12.2.0-14+deb12u1) 12.2.0, 64-bit";

    @Test
    void plainPostgresqlIsAccepted() {
        assertThat(ServerCheck.refusal(POSTGRES, false, "off")).isEmpty();
        assertThat(ServerCheck.refusal("PostgreSQL 18.0 on x86_64-pc-linux-gnu", false, "off"))
                .isEmpty();
    }

    @Test
    void cockroachDbIsRefusedForItsAdvisoryLocks() {
        assertThat(ServerCheck.refusal(
                        "CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27 01:53:43, go1.19.10)",
                        false,
                        "off"))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .contains("CockroachDB")
                        .contains("CockroachDB CCL v23.1.11")
                        .contains("advisory-lock functions do not lock"));
    }

    @Test
    void yugabyteDbIsRefusedForItsSequenceCache() {
        assertThat(ServerCheck.refusal(
                        "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6,"
                                + " 64-bit",
                        false,
                        "off"))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .contains("YugabyteDB")
                        .contains("ysql_sequence_cache_minval")
                        .contains("out of grant order"));
    }

    @Test
    void aStandbyIsRefused() {
        assertThat(ServerCheck.refusal(POSTGRES, true, "on"))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .contains("read-only standby")
                        .contains("pg_is_in_recovery()")
                        .contains("primary"));
    }

    @Test
    void aManagerOnReadOnlyTransactionsFailsAtStartUpNamingTheSetting() {
        PGSimpleDataSource readOnly = db.unpooledDataSource();
        readOnly.setOptions("-c default_transaction_read_only=on");

        assertThatThrownBy(() -> PostgresLockManager.builder(readOnly).build())
                .isInstanceOf(UnsafeLockStoreException.class)
                .hasMessageContaining("refuses the database of the lock table 'distributed_lock'")
                .hasMessageContaining("transaction_read_only is on")
                .hasMessageContaining("default_transaction_read_only");
    }

    @Test
    void aManagerOnAdvisoryLocksThatDoNotLockFailsAtStartUp() {
        // A no-op advisory lock function found before pg_catalog's, as on a database that only imitates them.
        db.execute("""
                CREATE SCHEMA noop;
                CREATE FUNCTION noop.pg_try_advisory_xact_lock(int, int) RETURNS boolean
                    LANGUAGE sql AS 'SELECT true';
                """);
        PGSimpleDataSource imitation = db.unpooledDataSource();
        imitation.setOptions("-c search_path=noop,pg_catalog,public");

        assertThatThrownBy(() -> PostgresLockManager.builder(imitation).build())
                .isInstanceOf(UnsafeLockStoreException.class)
                .hasMessageContaining("its advisory locks do not lock")
                .hasMessageContaining("PostgreSQL 1");
    }

    @Test
    void aManagerOnPostgresqlStarts() {
        try (PostgresLockManager manager =
                PostgresLockManager.builder(db.dataSource()).build()) {
            assertThat(manager.tableName()).isEqualTo("distributed_lock");
        }
    }

    @Test
    void aConnectionLostDuringTheCheckIsTreatedAsAnUnreachableDatabaseNotAsAnUnsafeOne() {
        // The server ends the check's own session as it begins, as a failover or a cut link would.
        DataSource terminatedOnUse = withFault(connection -> {
            try (Statement statement = connection.createStatement();
                    ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
                pid.next();
                db.execute("SELECT pg_terminate_backend(" + pid.getInt(1) + ")");
            }
            return connection;
        });

        new ServerCheck(terminatedOnUse, TableName.of("distributed_lock")).check();
    }

    @Test
    void aSessionTheServerEndsDuringTheCheckIsTreatedAsAnUnreachableDatabase() {
        // An administrator (or a fault injector) terminates the session while a check query runs: the driver reports
        // SQLState 57P01 and may still call the connection valid until it next reads from it.
        DataSource endedDuringTheCheck = withFault(real -> (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")
                            || method.getName().equals("createStatement")) {
                        throw new SQLException("FATAL: terminating connection due to administrator command", "57P01");
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));

        new ServerCheck(endedDuringTheCheck, TableName.of("distributed_lock")).check();
    }

    @Test
    void aPoolWithoutASecondConnectionForTheCheckIsTreatedAsAnUnreachableDatabase() {
        // The check takes a second connection to compare sessions; a busy pool times out on it, as Hikari reports.
        AtomicInteger handedOut = new AtomicInteger();
        DataSource busyPool = withFault(connection -> {
            if (handedOut.incrementAndGet() > 1) {
                connection.close();
                throw new SQLTransientConnectionException("pool - Connection is not available, request timed out");
            }
            return connection;
        });

        new ServerCheck(busyPool, TableName.of("distributed_lock")).check();

        assertThat(handedOut).hasValueGreaterThan(1);
    }

    /** What a fault does to a connection of the test database as it is handed out. */
    @FunctionalInterface
    private interface ConnectionFault {
        Connection apply(Connection connection) throws SQLException;
    }

    private static DataSource withFault(ConnectionFault fault) {
        return new DelegatingDataSource(db.unpooledDataSource()) {
            @Override
            public Connection getConnection() throws SQLException {
                return fault.apply(super.getConnection());
            }
        };
    }
}
