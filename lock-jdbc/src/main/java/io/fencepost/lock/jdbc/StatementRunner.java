package io.fencepost.lock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/**
 * Runs one lock statement on its own connection, in its own autocommit transaction, within the statement
 * timeout; turns every {@link SQLException} into a {@link io.fencepost.lock.LockStoreException}.
 *
 * <p>The statement never joins a transaction of the caller: a connection handed out with autocommit off is
 * switched to autocommit for the statement and switched back afterwards. (A {@code DataSource} that hands out
 * the caller's own transactional connection, such as Spring's {@code TransactionAwareDataSourceProxy}, defeats
 * this; give fencepost the plain pool.)
 */
final class StatementRunner {

    /** The statement of one lock call, prepared and ready for its parameters. */
    @FunctionalInterface
    interface StatementWork<T> {
        T execute(PreparedStatement statement) throws SQLException;
    }

    private static final System.Logger LOG = System.getLogger(StatementRunner.class.getName());

    /** Drivers that abort a timed-out connection asynchronously may do it on the calling thread. */
    private static final Executor DIRECT = Runnable::run;

    private static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE - 1);

    private final DataSource dataSource;

    private final Duration statementTimeout;

    private final int networkTimeoutMillis;

    StatementRunner(DataSource dataSource, Duration statementTimeout) {
        this.dataSource = dataSource;
        this.statementTimeout = statementTimeout;
        // JDBC takes int timeouts; about 24 days is as long as any lock statement could sensibly wait.
        Duration capped = statementTimeout.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : statementTimeout;
        // The network timeout bounds the call: it works when the server is unreachable too. There is no query
        // timeout: it could only fire after the network timeout, which already ends the call, and the driver arms
        // a timer task for it on every statement (about 15 µs per statement on the benchmark machine, issue 8).
        this.networkTimeoutMillis = (int) Math.max(1, ceilMillis(capped));
    }

    /**
     * Runs {@code sql} with {@code work}.
     *
     * @param action what is attempted, for the error message, such as {@code acquire lock 'k'}
     * @param secrets owner tokens that must be kept out of any error
     */
    <T> T run(String action, List<String> secrets, String sql, StatementWork<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return runOn(connection, sql, work);
        } catch (SQLException e) {
            throw StoreFailures.translate(action, e, statementTimeout, secrets);
        }
    }

    private <T> T runOn(Connection connection, String sql, StatementWork<T> work) throws SQLException {
        boolean callerAutoCommit = connection.getAutoCommit();
        if (!callerAutoCommit) {
            connection.setAutoCommit(true);
        }
        int callerNetworkTimeout = connection.getNetworkTimeout();
        T result;
        try {
            connection.setNetworkTimeout(DIRECT, networkTimeoutMillis);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                result = work.execute(statement);
            }
        } catch (SQLException | RuntimeException e) {
            try {
                restore(connection, callerAutoCommit, callerNetworkTimeout);
            } catch (SQLException restoreFailure) {
                e.addSuppressed(restoreFailure);
            }
            throw e;
        }
        try {
            restore(connection, callerAutoCommit, callerNetworkTimeout);
        } catch (SQLException e) {
            // The statement has committed: report its outcome. The connection goes back to its pool, which
            // resets or evicts it; failing here would turn a granted lease into an error for nothing.
            LOG.log(
                    System.Logger.Level.WARNING,
                    "could not restore the connection's autocommit and network timeout after a lock statement"
                            + " (SQLState " + e.getSQLState() + "); the pool should reset or evict it",
                    e);
        }
        return result;
    }

    private static void restore(Connection connection, boolean autoCommit, int networkTimeout) throws SQLException {
        connection.setNetworkTimeout(DIRECT, networkTimeout);
        if (!autoCommit) {
            connection.setAutoCommit(false);
        }
    }

    static long ceilMillis(Duration duration) {
        long millis = duration.toMillis();
        return duration.minusMillis(millis).isZero() ? millis : millis + 1;
    }
}
