package io.fencepost.lock.benchmarks.clients;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * PostgreSQL's session-level advisory lock: the server queues waiters, nothing is persisted, and the connection
 * stays checked out of the pool for as long as the lock is held (releasing it is the session's business).
 */
public final class AdvisoryLockClient implements LockClient {

    private static final String LOCK_SQL = "SELECT pg_advisory_lock(hashtext(?))";

    private static final String TRY_LOCK_SQL = "SELECT pg_try_advisory_lock(hashtext(?))";

    private static final String UNLOCK_SQL = "SELECT pg_advisory_unlock(hashtext(?))";

    private final DataSource dataSource;

    public AdvisoryLockClient(ClientContext context) {
        this.dataSource = context.dataSource();
    }

    @Override
    public Held acquire(String key, Duration wait) throws Exception {
        Connection connection = dataSource.getConnection();
        try (PreparedStatement statement = connection.prepareStatement(LOCK_SQL)) {
            statement.setQueryTimeout((int) Math.max(1, wait.toSeconds()));
            statement.setString(1, key);
            statement.executeQuery().close();
        } catch (SQLException e) {
            connection.close();
            if ("57014".equals(e.getSQLState())) {
                return null; // cancelled by the query timeout: not acquired in time
            }
            throw e;
        }
        return () -> unlock(connection, key);
    }

    @Override
    public Held tryAcquire(String key) throws Exception {
        Connection connection = dataSource.getConnection();
        boolean locked;
        try (PreparedStatement statement = connection.prepareStatement(TRY_LOCK_SQL)) {
            statement.setString(1, key);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                locked = rows.getBoolean(1);
            }
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        if (!locked) {
            connection.close();
            return null;
        }
        return () -> unlock(connection, key);
    }

    private static void unlock(Connection connection, String key) throws SQLException {
        try (connection;
                PreparedStatement statement = connection.prepareStatement(UNLOCK_SQL)) {
            statement.setString(1, key);
            statement.executeQuery().close();
        }
    }

    @Override
    public void close() {}
}
