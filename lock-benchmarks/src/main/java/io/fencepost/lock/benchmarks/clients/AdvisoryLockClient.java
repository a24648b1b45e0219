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
public class AdvisoryLockClient implements LockClient {

    /** The lock, attempt and unlock statements, each binding the key as its one parameter. */
    record Statements(String lock, String tryLock, String unlock) {

        static final Statements ON_KEY_HASH = new Statements(
                "SELECT pg_advisory_lock(hashtext(?))",
                "SELECT pg_try_advisory_lock(hashtext(?))",
                "SELECT pg_advisory_unlock(hashtext(?))");

        /** The two-number form: the key's hash within {@code lockClass}, apart from the one-number locks. */
        static Statements inClass(int lockClass) {
            return new Statements(
                    "SELECT pg_advisory_lock(" + lockClass + ", hashtext(?))",
                    "SELECT pg_try_advisory_lock(" + lockClass + ", hashtext(?))",
                    "SELECT pg_advisory_unlock(" + lockClass + ", hashtext(?))");
        }
    }

    private final DataSource dataSource;

    private final Statements statements;

    public AdvisoryLockClient(ClientContext context) {
        this(context, Statements.ON_KEY_HASH);
    }

    AdvisoryLockClient(ClientContext context, Statements statements) {
        this.dataSource = context.dataSource();
        this.statements = statements;
    }

    /**
     * Runs on the lock's connection once the server has granted the lock, before the caller holds it; the lock is
     * given back if it throws. Nothing here: a plain advisory lock's grant is the lock.
     */
    void granted(Connection connection, String key) throws SQLException {}

    @Override
    public Held acquire(String key, Duration wait) throws Exception {
        Connection connection = dataSource.getConnection();
        try (PreparedStatement statement = connection.prepareStatement(statements.lock())) {
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
        return grant(connection, key);
    }

    @Override
    public Held tryAcquire(String key) throws Exception {
        Connection connection = dataSource.getConnection();
        boolean locked;
        try (PreparedStatement statement = connection.prepareStatement(statements.tryLock())) {
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
        return grant(connection, key);
    }

    private Held grant(Connection connection, String key) throws SQLException {
        try {
            granted(connection, key);
        } catch (SQLException | RuntimeException e) {
            unlock(connection, key);
            throw e;
        }
        return () -> unlock(connection, key);
    }

    private void unlock(Connection connection, String key) throws SQLException {
        try (connection;
                PreparedStatement statement = connection.prepareStatement(statements.unlock())) {
            statement.setString(1, key);
            statement.executeQuery().close();
        }
    }

    @Override
    public void close() {}
}
