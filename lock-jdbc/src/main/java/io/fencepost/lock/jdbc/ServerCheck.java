package io.fencepost.lock.jdbc;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * The start-up check of the server under the lock table: refuses, before anything is written, a server on which a
 * lock could be granted twice or a fencing token drawn out of order. A database that only speaks PostgreSQL's
 * protocol (CockroachDB, YugabyteDB), a read-only standby or read-only transactions, advisory locks that do not
 * lock. It also refuses driver-side prepared statements behind a pooler in transaction mode, where they collide on
 * the pooler's shared server connections and releases fail.
 */
final class ServerCheck {

    private static final String SERVER_SQL = """
            SELECT version() AS version,
                   pg_is_in_recovery() AS in_recovery,
                   current_setting('transaction_read_only') AS read_only
            """;

    /** Takes one transaction-scoped advisory lock, as the draw lock does, and looks for it among the held locks. */
    private static final String ADVISORY_LOCK_SQL = "SELECT pg_try_advisory_xact_lock(?, ?) AS taken";

    private static final String ADVISORY_HELD_SQL = """
            SELECT count(*) AS held FROM pg_locks
             WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
            """;

    private static final System.Logger LOG = System.getLogger(ServerCheck.class.getName());

    private final DataSource dataSource;

    private final TableName tableName;

    /** Found by {@link #check}; null when it could not tell. */
    private Boolean sharesSessions;

    ServerCheck(DataSource dataSource, TableName tableName) {
        this.dataSource = dataSource;
        this.tableName = tableName;
    }

    /**
     * Runs the checks on one connection of the pool; a database that cannot be reached is not checked.
     *
     * @throws UnsafeLockStoreException naming what makes the server unsafe and what to change
     */
    void check() {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            // Not evidence of an unsafe server: the manager starts, and its calls fail closed until the database
            // answers (the schema step, unless SchemaMode.NONE, fails on its own).
            LOG.log(
                    Level.WARNING,
                    "could not reach the database of the lock table ''{0}'' to check it at start-up ({1})",
                    tableName.table(),
                    e.toString());
            return;
        }
        try {
            String version;
            boolean inRecovery;
            String readOnly;
            try (Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery(SERVER_SQL)) {
                row.next();
                version = row.getString("version");
                inRecovery = row.getBoolean("in_recovery");
                readOnly = row.getString("read_only");
            }
            Optional<String> refusal = refusal(version, inRecovery, readOnly);
            if (refusal.isEmpty() && !advisoryLocksLock(connection)) {
                refusal = Optional.of("its advisory locks do not lock (an advisory lock taken in a transaction is not"
                        + " among the session's locks in pg_locks): fencepost draws fencing tokens under one,"
                        + " so it needs a PostgreSQL server (version() says '" + version + "')");
            }
            if (refusal.isEmpty()) {
                refusal = preparedStatementsBehindTransactionPooler(connection);
            }
            if (refusal.isPresent()) {
                throw new UnsafeLockStoreException("fencepost refuses the database of the lock table '"
                        + tableName.table() + "': " + refusal.get());
            }
        } catch (SQLException e) {
            if (connectionLost(connection, e)) {
                // As if it could not be reached: a connection that broke during the check says nothing of the server.
                LOG.log(
                        Level.WARNING,
                        "lost the connection to the database of the lock table ''{0}'' while checking it at start-up"
                                + " ({1})",
                        tableName.table(),
                        e.toString());
                return;
            }
            throw new UnsafeLockStoreException(
                    "could not check the database of the lock table '" + tableName.table() + "' (SQLState "
                            + e.getSQLState() + "): " + e.getMessage() + "; check the database connection",
                    e);
        } finally {
            closeQuietly(connection);
        }
    }

    /**
     * After {@link #check}: whether the pool's connections share server sessions between transactions (a pooler in
     * transaction mode); empty when the check could not tell.
     */
    Optional<Boolean> sharesSessions() {
        return Optional.ofNullable(sharesSessions);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // returned to the pool or discarded either way; nothing of the check depends on it
        }
    }

    /** Whether {@code failure} came from a connection that broke (SQLState class 08, or closed under us). */
    private static boolean connectionLost(Connection connection, SQLException failure) {
        if (failure instanceof SQLTransientException || failure instanceof SQLRecoverableException) {
            // A pool that had no second connection for the check in time, a timeout: nothing the server said.
            return true;
        }
        String state = failure.getSQLState();
        // 08: connection exceptions; 57P: the server ended the session (shutdown, crash, termination by an operator),
        // which the driver may report before it notices the connection is gone.
        if (state != null && (state.startsWith("08") || state.startsWith("57P"))) {
            return true;
        }
        try {
            return !connection.isValid(1);
        } catch (SQLException closed) {
            return true;
        }
    }

    /** Why a server that answered so is unsafe for locks, if it is. */
    static Optional<String> refusal(String version, boolean inRecovery, String readOnly) {
        String lower = version == null ? "" : version.toLowerCase(Locale.ROOT);
        if (lower.contains("cockroachdb")) {
            return Optional.of("it is CockroachDB (version() says '" + version + "'), whose advisory-lock functions"
                    + " do not lock and which has no LISTEN/NOTIFY; point fencepost at a PostgreSQL server");
        }
        if (lower.contains("-yb-") || lower.contains("yugabyte")) {
            return Optional.of("it is YugabyteDB (version() says '" + version + "'), which caches sequence values"
                    + " per session (ysql_sequence_cache_minval) whatever the sequence's CACHE says, so fencing"
                    + " tokens would be drawn out of grant order; point fencepost at a PostgreSQL server");
        }
        if (inRecovery) {
            return Optional.of("it is a read-only standby (pg_is_in_recovery() is true), where no lock can be granted;"
                    + " point fencepost at the primary");
        }
        if ("on".equalsIgnoreCase(readOnly)) {
            return Optional.of("its transactions are read-only (transaction_read_only is on: check"
                    + " default_transaction_read_only for this role and database, and the connection's read-only"
                    + " setting), so no lock can be granted; give fencepost read-write connections to the primary");
        }
        return Optional.empty();
    }

    /**
     * Whether the pool's connections share server sessions between transactions ({@link SessionSharing}), which
     * refuses driver-side prepared statements ({@code prepareThreshold} above 0) and keeps waiters out of the server's
     * lock queue.
     */
    private Optional<String> preparedStatementsBehindTransactionPooler(Connection connection) throws SQLException {
        int prepareThreshold;
        try {
            prepareThreshold = connection.unwrap(PGConnection.class).getPrepareThreshold();
        } catch (SQLException notPgJdbc) {
            return Optional.empty();
        }
        sharesSessions = SessionSharing.betweenTransactions(dataSource, connection);
        if (prepareThreshold <= 0 || !sharesSessions) {
            return Optional.empty();
        }
        return Optional.of("its connections share server sessions between transactions (a connection pooler in"
                + " transaction mode, such as PgBouncer with pool_mode = transaction), and the driver prepares"
                + " statements on the server (prepareThreshold=" + prepareThreshold + "), which then collide on the"
                + " pooler's server connections (\"prepared statement S_1 already exists\") and fail releases: add"
                + " prepareThreshold=0 to the JDBC URL, or connect fencepost directly or through session pooling");
    }

    private boolean advisoryLocksLock(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            boolean taken;
            try (PreparedStatement lock = connection.prepareStatement(ADVISORY_LOCK_SQL)) {
                lock.setInt(1, tableName.advisoryClassId());
                // A key no lock statement is likely to use; if another session holds it, that proves locking too.
                lock.setInt(2, ThreadLocalRandom.current().nextInt());
                try (ResultSet row = lock.executeQuery()) {
                    row.next();
                    taken = row.getBoolean("taken");
                }
            }
            if (!taken) {
                return true;
            }
            try (Statement held = connection.createStatement();
                    ResultSet row = held.executeQuery(ADVISORY_HELD_SQL)) {
                row.next();
                return row.getLong("held") > 0;
            }
        } finally {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
        }
    }
}
