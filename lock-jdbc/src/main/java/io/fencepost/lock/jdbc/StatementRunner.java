package io.fencepost.lock.jdbc;

import io.fencepost.lock.LockStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Runs one lock statement on its own connection, in its own autocommit transaction, within the statement timeout;
 * turns every {@link SQLException} into a {@link io.fencepost.lock.LockStoreException}.
 *
 * <p>The statement timeout bounds the whole call: the wait for a connection ({@link ConnectionWait}, whatever the
 * pool's own connection timeout) and the statement, which gets what the wait left of it. Each call tells the
 * {@link Reachability} whether the database answered.
 *
 * <p>The statement never joins a transaction of the caller: a connection handed out with autocommit off is switched
 * to autocommit for the statement and switched back afterwards. (A {@code DataSource} that hands out the caller's own
 * transactional connection, such as Spring's {@code TransactionAwareDataSourceProxy}, defeats this; give fencepost
 * the plain pool.)
 */
final class StatementRunner {

    /** The values of a statement's named parameters, made on its connection (for arrays). */
    @FunctionalInterface
    interface Parameters {
        Map<String, ?> on(Connection connection) throws SQLException;
    }

    /** Reads the rows a statement returned. */
    @FunctionalInterface
    interface RowReader<T> {
        T read(ResultSet rows) throws SQLException;
    }

    private static final System.Logger LOG = System.getLogger(StatementRunner.class.getName());

    /** Drivers that abort a timed-out connection asynchronously may do it on the calling thread. */
    private static final Executor DIRECT = Runnable::run;

    private static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE - 1);

    private final DataSource dataSource;

    private final ConnectionWait connections;

    private final Reachability reachability;

    private final Duration statementTimeout;

    private final int networkTimeoutMillis;

    /**
     * @throws IllegalArgumentException for a non-positive timeout
     */
    StatementRunner(DataSource dataSource, Duration statementTimeout) {
        this(dataSource, statementTimeout, new Reachability());
    }

    /**
     * A runner that tells {@code reachability} what its calls saw.
     *
     * @throws IllegalArgumentException for a non-positive timeout
     */
    StatementRunner(DataSource dataSource, Duration statementTimeout, Reachability reachability) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.connections = new ConnectionWait(dataSource);
        this.reachability = Objects.requireNonNull(reachability, "reachability");
        if (statementTimeout == null || statementTimeout.isNegative() || statementTimeout.isZero()) {
            throw new IllegalArgumentException("statement timeout must be positive, was " + statementTimeout);
        }
        this.statementTimeout = statementTimeout;
        // JDBC takes int timeouts; about 24 days is as long as any lock statement could sensibly wait.
        Duration capped = statementTimeout.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : statementTimeout;
        // The network timeout bounds the call, also when the server is unreachable. There is no query timeout: it
        // could only fire after the network timeout, which already ends the call, and the driver would arm a timer
        // task for it on every statement.
        this.networkTimeoutMillis = (int) Math.max(1, ceilMillis(capped));
    }

    /** The timeout of one statement, in milliseconds. */
    int timeoutMillis() {
        return networkTimeoutMillis;
    }

    /** The timeout of one call, connection wait included. */
    Duration statementTimeout() {
        return statementTimeout;
    }

    /** A runner like this one whose calls tell {@code other} what they saw. */
    StatementRunner reportingTo(Reachability other) {
        return new StatementRunner(dataSource, statementTimeout, other);
    }

    /** What this runner's calls last saw of the database. */
    Reachability reachability() {
        return reachability;
    }

    /**
     * Runs {@code statement} with {@code parameters} and reads its rows with {@code reader}.
     *
     * @param action what is attempted, for the error message, such as {@code acquire lock 'k'}
     * @param secrets owner tokens that must be kept out of any error
     */
    <T> T run(
            String action,
            List<String> secrets,
            NamedStatement statement,
            Map<String, ?> parameters,
            RowReader<T> reader) {
        return run(action, secrets, statement, connection -> parameters, reader);
    }

    /** As {@link #run(String, List, NamedStatement, Map, RowReader)}, with parameters made on the connection. */
    <T> T run(
            String action, List<String> secrets, NamedStatement statement, Parameters parameters, RowReader<T> reader) {
        return withConnection(action, secrets, connection -> query(connection, statement, parameters, reader));
    }

    /** Work on one connection of the pool, in autocommit mode, each statement bounded by the statement timeout. */
    @FunctionalInterface
    interface ConnectionWork<T> {
        T on(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection of its own, in autocommit mode, within the statement timeout: the wait for
     * the connection takes its share, each statement's network timeout is what remains. The connection's settings
     * are restored afterwards.
     */
    <T> T withConnection(String action, List<String> secrets, ConnectionWork<T> work) {
        long start = System.nanoTime();
        Connection connection;
        try {
            connection = connections.obtain(TimeUnit.MILLISECONDS.toNanos(networkTimeoutMillis));
        } catch (ConnectionWait.TimedOut e) {
            reachability.unreachable(StoreFailures.noConnectionReason(statementTimeout));
            throw StoreFailures.noConnection(action, statementTimeout);
        } catch (SQLException e) {
            throw failed(
                    action,
                    e,
                    StoreFailures.Phase.CONNECTION_WAIT,
                    Duration.ofNanos(System.nanoTime() - start),
                    secrets);
        }
        long waited = System.nanoTime() - start;
        // What the wait left of the bound, and never nothing: a connection that came just in time still gets to ask.
        int networkTimeout = (int) Math.max(1, networkTimeoutMillis - TimeUnit.NANOSECONDS.toMillis(waited));
        try (connection) {
            T result = runOn(connection, work, networkTimeout);
            reachability.answered();
            return result;
        } catch (SQLException e) {
            throw failed(action, e, StoreFailures.Phase.STATEMENT, Duration.ofNanos(waited), secrets);
        }
    }

    private LockStoreException failed(
            String action, SQLException e, StoreFailures.Phase phase, Duration waited, List<String> secrets) {
        String reason = StoreFailures.reason(e, phase, statementTimeout, waited, secrets);
        if (StoreFailures.unreachable(e)) {
            reachability.unreachable(reason);
        } else {
            reachability.answered();
        }
        return StoreFailures.failed(action, reason, e, secrets);
    }

    /** Runs one statement on {@code connection} and reads its rows. */
    static <T> T query(Connection connection, NamedStatement named, Parameters parameters, RowReader<T> reader)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(named.jdbcSql())) {
            named.bind(statement, parameters.on(connection));
            try (ResultSet rows = statement.executeQuery()) {
                return reader.read(rows);
            }
        }
    }

    private <T> T runOn(Connection connection, ConnectionWork<T> work, int timeoutMillis) throws SQLException {
        boolean callerAutoCommit = connection.getAutoCommit();
        if (!callerAutoCommit) {
            connection.setAutoCommit(true);
        }
        int callerNetworkTimeout = connection.getNetworkTimeout();
        T result;
        try {
            connection.setNetworkTimeout(DIRECT, timeoutMillis);
            result = work.on(connection);
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
            // The statement has committed: report its outcome. The connection goes back to its pool, which resets or
            // evicts it; failing here would turn a granted lease into an error for nothing.
            LOG.log(
                    System.Logger.Level.WARNING,
                    "could not restore the connection's autocommit and network timeout after a lock statement"
                            + " (SQLState " + e.getSQLState() + ": " + e.getMessage()
                            + "); the pool should reset or evict it");
            LOG.log(System.Logger.Level.DEBUG, "the restore failure", e);
        }
        return result;
    }

    private static void restore(Connection connection, boolean autoCommit, int networkTimeout) throws SQLException {
        connection.setNetworkTimeout(DIRECT, networkTimeout);
        if (!autoCommit) {
            connection.setAutoCommit(false);
        }
    }

    /**
     * {@code duration} in whole milliseconds, rounded up, as the statements bind it.
     *
     * @throws IllegalArgumentException when it is not positive, or too long to count
     */
    static long millis(Duration duration, String what, String key) {
        requirePositive(duration, what, key);
        try {
            return ceilMillis(duration);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " is too long, was " + duration + " (key '" + key + "')", e);
        }
    }

    /** {@code duration} in whole microseconds (the database clock's resolution), rounded up. */
    static long micros(Duration duration, String what, String key) {
        requirePositive(duration, what, key);
        try {
            return Math.addExact(
                    Math.multiplyExact(duration.getSeconds(), 1_000_000L), (duration.getNano() + 999) / 1_000);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " is too long, was " + duration + " (key '" + key + "')", e);
        }
    }

    private static void requirePositive(Duration duration, String what, String key) {
        Objects.requireNonNull(duration, what);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + duration + " (key '" + key + "')");
        }
    }

    static long ceilMillis(Duration duration) {
        long millis = duration.toMillis();
        return duration.minusMillis(millis).isZero() ? millis : millis + 1;
    }
}
