package io.fencepost.lock.jdbc;

import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.internal.LogSafe;
import io.fencepost.lock.spi.LockQueue;
import io.fencepost.lock.spi.ReleaseRequest;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * The store's queue ({@link LockQueue}) on PostgreSQL: a session-level advisory lock per key, held on a connection of
 * the pool for as long as the place is. A waiter blocks in the server's own lock queue, first come first served, and
 * the unlock of the place before it wakes it there: no message goes to any other session, and no commit waits for
 * one. The lock only orders the asking; leases are decided by their rows as always, so a place that is lost (its
 * session died), never left (its holder stopped) or shared by two keys (their hashes met) costs waiting time, never a
 * lease: every wait in the queue is bounded ({@code lock_timeout}) and then asks the store.
 *
 * <p>At most {@code maxSessions} places at once, each one connection taken from the pool; past that, and on a pool
 * whose connections share server sessions between transactions (a pooler in transaction mode, where a session lock
 * is not the connection's), it answers empty and the engine waits as it would without a queue.
 */
final class PostgresLockQueue implements LockQueue {

    private static final System.Logger LOG = System.getLogger(PostgresLockQueue.class.getName());

    /**
     * Takes the key's lock, waiting for it within a lock timeout local to the statement's own transaction (the session
     * keeps the lock, not the setting; the materialized CTE sets the timeout before the lock is asked for), and tells
     * whether it had to wait: the try short-circuits the wait when the lock is free.
     */
    private static final String ENTER_SQL = """
            WITH timeout AS MATERIALIZED (SELECT set_config('lock_timeout', ?, true))
            SELECT CASE WHEN pg_try_advisory_lock(?, hashtext(?)) THEN false
                        -- true once the lock is ours (a void's text is never null, and the test keeps the call)
                        ELSE pg_advisory_lock(?, hashtext(?))::text IS NOT NULL END AS waited
              FROM timeout
            """;

    /**
     * {@link PostgresStatements#RELEASE_UNCONTENDED} on the session that holds the key's place in the server's lock
     * queue (this queue), which it leaves in the same transaction: three statements sent at once, which the server
     * runs in order as one transaction (they share one Sync). First our row is locked, then the place is left, then
     * the row is deleted and the transaction commits asynchronously. The next waiter in the queue wakes as soon as the
     * place is left, so its wake-up and its way back to the server run while the delete and the commit do, and its
     * attempt, which needs the row, waits for this transaction and finds the key free. Left before the row was locked,
     * a waiter that came back quickly would find the lease still live and wait on as a registered waiter; left after
     * the delete, it would wake only once the delete was done. The last statement answers one row: no lease found when
     * the lease was not ours or is marked as waited for; the place is left either way.
     */
    static final String RELEASE_AND_LEAVE_SQL = """
            SELECT set_config('synchronous_commit', 'off', true)
              FROM {table} AS l
             WHERE l.lock_key = :key AND l.owner_token = :owner::uuid AND NOT l.contended
               FOR UPDATE;
            SELECT pg_advisory_unlock({queue_class_id}, hashtext(:key));
            WITH released AS (
                DELETE FROM {table} AS l
                 WHERE l.lock_key = :key AND l.owner_token = :owner::uuid AND NOT l.contended
                RETURNING l.expires_at > clock_timestamp() AS was_live
            )
            SELECT r.was_live IS NOT NULL AS found, r.was_live
              FROM (SELECT 1) AS one LEFT JOIN released AS r ON true
            """;

    private static final String LEAVE_SQL = "SELECT pg_advisory_unlock(?, hashtext(?))";

    /** PostgreSQL's SQLState for a lock wait that ran past {@code lock_timeout}. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private static final Executor DIRECT = Runnable::run;

    private final DataSource dataSource;

    /** A place's connection, within the statement timeout like every lock statement's. */
    private final ConnectionWait connections;

    private final TableName tableName;

    private final Duration statementTimeout;

    private final Semaphore sessions;

    private final PostgresStatements statements;

    /** The store's own release, for what the queue's session does not release itself. */
    private final Predicate<ReleaseRequest> storeRelease;

    /**
     * The places each thread took, by key: the head's attempts run on its place's session, which the release before
     * it has just woken, instead of on another connection whose server process has to be woken too.
     */
    private final ThreadLocal<Map<String, SessionPlace>> taken = ThreadLocal.withInitial(HashMap::new);

    /** Null until the first wait has looked at the pool; then whether its connections have sessions of their own. */
    private volatile Boolean ownSessions;

    PostgresLockQueue(
            DataSource dataSource,
            TableName tableName,
            Duration statementTimeout,
            int maxSessions,
            PostgresStatements statements,
            Predicate<ReleaseRequest> storeRelease) {
        this.dataSource = dataSource;
        this.connections = new ConnectionWait(dataSource);
        this.tableName = tableName;
        this.statementTimeout = statementTimeout;
        this.sessions = new Semaphore(maxSessions);
        this.statements = statements;
        this.storeRelease = storeRelease;
    }

    /**
     * What the start-up check found about the pool ({@link SessionSharing}), so that no wait looks for itself: that
     * takes a second connection while holding one, which a small, busy pool may not have.
     */
    void sessionsShared(boolean shared) {
        ownSessions = !shared;
    }

    @Override
    public Optional<Place> enter(String key, Duration timeout) {
        if (Boolean.FALSE.equals(ownSessions) || !sessions.tryAcquire()) {
            return Optional.empty();
        }
        Connection connection = null;
        int networkTimeout = 0;
        try {
            connection = connections.obtain(statementTimeout.toNanos());
            networkTimeout = connection.getNetworkTimeout();
            if (!hasOwnSession(connection)) {
                close(connection);
                sessions.release();
                return Optional.empty();
            }
            // Within the statement timeout, like every lock statement: a wait past it re-checks the store first.
            long waitMillis =
                    Math.max(1, Math.min(StatementRunner.ceilMillis(timeout), statementTimeout.toMillis() / 2));
            connection.setNetworkTimeout(
                    DIRECT, (int) Math.min(Integer.MAX_VALUE, statementTimeout.toMillis() + waitMillis));
            boolean waited;
            try (PreparedStatement enter = connection.prepareStatement(ENTER_SQL)) {
                enter.setString(1, waitMillis + "ms");
                enter.setInt(2, tableName.queueClassId());
                enter.setString(3, key);
                enter.setInt(4, tableName.queueClassId());
                enter.setString(5, key);
                try (ResultSet row = enter.executeQuery()) {
                    row.next();
                    waited = row.getBoolean("waited");
                }
            }
            SessionPlace place = new SessionPlace(connection, key, networkTimeout, waited);
            Map<String, SessionPlace> mine = taken.get();
            mine.values().removeIf(SessionPlace::isLeft);
            mine.put(key, place);
            return Optional.of(place);
        } catch (SQLException e) {
            if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                restoreAndClose(connection, networkTimeout); // the failed statement took nothing
                sessions.release();
                return Optional.empty();
            }
            abort(connection);
            sessions.release();
            throw StoreFailures.translate(
                    "wait in the queue of lock '" + LogSafe.text(key) + "'", e, statementTimeout, List.of());
        } catch (ConnectionWait.TimedOut e) {
            sessions.release();
            throw StoreFailures.noConnection("wait in the queue of lock '" + LogSafe.text(key) + "'", statementTimeout);
        }
    }

    /** Work on a place's session. */
    @FunctionalInterface
    interface SessionWork<T> {
        T on(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on the session of the place of {@code key} that the calling thread took, if it still holds
     * one; empty otherwise. A failure ends the place: its session is discarded, which frees its lock in the server.
     *
     * @param action what is attempted, for the error message
     * @param secrets owner tokens that must be kept out of any error
     */
    <T> Optional<T> onPlaceOf(String key, String action, List<String> secrets, SessionWork<T> work) {
        SessionPlace place = taken.get().get(key);
        return place == null ? Optional.empty() : place.run(action, secrets, work);
    }

    private boolean hasOwnSession(Connection connection) throws SQLException {
        Boolean own = ownSessions;
        if (own == null) {
            own = !SessionSharing.betweenTransactions(dataSource, connection);
            if (!own) {
                LOG.log(
                        Level.INFO,
                        "the connections to the lock table ''{0}'' share server sessions between transactions (a"
                                + " pooler in transaction mode): waiters are woken by notifications, not in the"
                                + " server's lock queue",
                        tableName.table());
            }
            ownSessions = own;
        }
        if (!connection.getAutoCommit()) {
            connection.setAutoCommit(true);
        }
        return own;
    }

    /** A place: the session that holds the key's lock. */
    private final class SessionPlace implements Place {

        private final Connection connection;

        private final String key;

        /** The connection's network timeout before the place, restored when it goes back to the pool. */
        private final int networkTimeout;

        private final boolean waited;

        private final AtomicBoolean left = new AtomicBoolean();

        SessionPlace(Connection connection, String key, int networkTimeout, boolean waited) {
            this.connection = connection;
            this.key = key;
            this.networkTimeout = networkTimeout;
            this.waited = waited;
        }

        @Override
        public boolean waitedBehindOthers() {
            return waited;
        }

        boolean isLeft() {
            return left.get();
        }

        /** Runs {@code work} on this place's session while it is held; empty once it is left. */
        synchronized <T> Optional<T> run(String action, List<String> secrets, SessionWork<T> work) {
            if (left.get()) {
                return Optional.empty();
            }
            try {
                return Optional.of(work.on(connection));
            } catch (SQLException e) {
                if (!left.getAndSet(true)) {
                    abort(connection);
                    sessions.release();
                }
                throw StoreFailures.translate(action, e, statementTimeout, secrets);
            }
        }

        @Override
        public synchronized boolean releaseAndLeave(ReleaseRequest request) {
            if (request.mode() != LeaseMode.EXCLUSIVE || request.keepsMinimumHold() || left.getAndSet(true)) {
                try {
                    return storeRelease.test(request);
                } finally {
                    leave();
                }
            }
            Optional<Boolean> released;
            List<String> secrets = StoreFailures.secretsOf(request.ownerToken());
            try {
                released = releaseAndLeave(connection, OwnerTokens.toUuid(request.ownerToken()));
                restoreAndClose(connection, networkTimeout);
            } catch (SQLException e) {
                abort(connection);
                throw StoreFailures.translate("release lock '" + LogSafe.text(key) + "'", e, statementTimeout, secrets);
            } finally {
                sessions.release();
            }
            // No row: not ours any more, or marked as waited for by a registered waiter, whom the store's own
            // release hands the lease (the place is left already; its next waiter finds the key busy and waits).
            return released.orElseGet(() -> storeRelease.test(request));
        }

        /** Runs {@link #RELEASE_AND_LEAVE_SQL}: whether the lease was live, or empty when it was not ours to end. */
        private Optional<Boolean> releaseAndLeave(Connection connection, Object owner) throws SQLException {
            NamedStatement named = statements.releaseAndLeaveQueue;
            try (PreparedStatement statement = connection.prepareStatement(named.jdbcSql())) {
                named.bind(statement, Map.of("key", key, "owner", owner));
                statement.execute(); // the row lock's result, then the unlock's, then the delete's
                statement.getMoreResults();
                if (!statement.getMoreResults()) {
                    throw new SQLException("the release of a place answered no row", "XX000");
                }
                try (ResultSet row = statement.getResultSet()) {
                    row.next();
                    return row.getBoolean("found") ? Optional.of(row.getBoolean("was_live")) : Optional.empty();
                }
            }
        }

        @Override
        public synchronized void leave() {
            if (left.getAndSet(true)) {
                return;
            }
            try (PreparedStatement leave = connection.prepareStatement(LEAVE_SQL)) {
                leave.setInt(1, tableName.queueClassId());
                leave.setString(2, key);
                leave.executeQuery().close();
                restoreAndClose(connection, networkTimeout);
            } catch (SQLException e) {
                // Whether the session still holds the lock is unknown: it must never go back to the pool holding it.
                LOG.log(Level.DEBUG, "could not leave the queue of lock ''{0}'': {1}", LogSafe.text(key), e.toString());
                abort(connection);
            } finally {
                sessions.release();
            }
        }
    }

    /** Gives the connection back to the pool as it came (in autocommit, as pools hand them out). */
    private static void restoreAndClose(Connection connection, int networkTimeout) {
        try {
            connection.setNetworkTimeout(DIRECT, networkTimeout);
        } catch (SQLException e) {
            abort(connection);
            return;
        }
        close(connection);
    }

    private static void close(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // back to the pool or discarded either way
        }
    }

    /** Ends the session under the connection, so that the server frees whatever it held, and discards it. */
    private static void abort(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.abort(DIRECT);
        } catch (SQLException | RuntimeException ignored) {
            // closed below either way
        }
        close(connection);
    }
}
