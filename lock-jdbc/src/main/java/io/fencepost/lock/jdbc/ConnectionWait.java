package io.fencepost.lock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * Takes a connection from a {@link DataSource} within a bound of fencepost's own, whatever the pool's connection
 * timeout (HikariCP waits 30 s by default, and longer than that for a database that stopped answering): the pool is
 * asked on one of the {@link DatabaseThreads}, and a connection that arrives after the caller gave up is closed, which
 * returns it to the pool. The user's pool is never reconfigured.
 *
 * <p>The pool is asked on another thread, so a {@code DataSource} that picks its target by the calling thread's state
 * (a routing {@code DataSource} keyed by a thread-local) sees none; give fencepost the plain pool.
 */
final class ConnectionWait {

    /** The bound fired before the pool handed out a connection. */
    static final class TimedOut extends Exception {

        private static final long serialVersionUID = 1L;

        TimedOut() {
            super("no connection within the bound", null, false, false);
        }
    }

    private final DataSource dataSource;

    ConnectionWait(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * A connection of the pool, within {@code timeoutNanos}.
     *
     * @throws TimedOut when the pool handed out none in time; the one it hands out later is given back to it
     * @throws SQLException as the pool failed, or when the calling thread was interrupted (its flag restored)
     */
    Connection obtain(long timeoutNanos) throws SQLException, TimedOut {
        CompletableFuture<Connection> handed = new CompletableFuture<>();
        try {
            DatabaseThreads.executor().execute(() -> ask(handed));
        } catch (RuntimeException e) {
            throw new SQLException("could not ask the DataSource for a connection: " + e, "08001", e);
        }
        try {
            return handed.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return orGiveUp(handed, new TimedOut());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return orGiveUp(
                    handed,
                    new SQLException("interrupted while waiting for a connection from the DataSource", "08001"));
        } catch (ExecutionException e) {
            throw asSqlException(e.getCause());
        }
    }

    /** Asks the pool, unless the caller already gave up; a connection nobody waits for any more goes back. */
    private void ask(CompletableFuture<Connection> handed) {
        if (handed.isDone()) {
            return; // queued behind stuck calls until the caller gave up: asking now would only take a connection
        }
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException | RuntimeException | Error e) {
            handed.completeExceptionally(e);
            return;
        }
        if (!handed.complete(connection)) {
            closeQuietly(connection);
        }
    }

    /**
     * Gives up the wait with {@code failure}, unless the connection arrived in the meantime: completing the future
     * first decides which of the two sides owns it.
     */
    private static <E extends Exception> Connection orGiveUp(CompletableFuture<Connection> handed, E failure)
            throws E, SQLException {
        if (handed.cancel(false)) {
            throw failure;
        }
        try {
            return handed.getNow(null);
        } catch (CompletionException e) {
            throw asSqlException(e.getCause());
        } catch (CancellationException e) {
            throw failure;
        }
    }

    private static SQLException asSqlException(Throwable failure) {
        if (failure instanceof SQLException sql) {
            return sql;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new SQLException(String.valueOf(failure), "08001", failure);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            // the pool evicts a connection it cannot take back; nobody is left to tell
        }
    }
}
