package io.fencepost.lock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Whether a pool's connections share server sessions between transactions, as behind a connection pooler in
 * transaction mode (PgBouncer's {@code pool_mode = transaction}): there, what a session keeps (prepared statements,
 * settings, session-level advisory locks) is not the connection's own.
 */
final class SessionSharing {

    /** A session setting that a transaction pooler leaves behind on a server connection another session then gets. */
    private static final String SET_MARK_SQL = "SELECT set_config('fencepost.session_mark', ?, false)";

    private static final String READ_MARK_SQL = "SELECT current_setting('fencepost.session_mark', true) AS mark";

    private SessionSharing() {}

    /**
     * While {@code connection} holds a transaction open, another connection of the pool marks its session, and after
     * that transaction ends it looks for its mark. A server session of its own keeps it; a transaction pooler hands it
     * the server connection just freed (PgBouncer reuses the most recent one), where the mark is missing.
     */
    static boolean betweenTransactions(DataSource dataSource, Connection connection) throws SQLException {
        String mark = UUID.randomUUID().toString();
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        String seen;
        try (Connection other = dataSource.getConnection()) {
            try (Statement pin = connection.createStatement()) {
                pin.execute("SELECT 1"); // holds this connection's server session until the rollback
            }
            other.setAutoCommit(true);
            try (PreparedStatement set = other.prepareStatement(SET_MARK_SQL)) {
                set.setString(1, mark);
                set.execute();
            }
            connection.rollback();
            try (Statement read = other.createStatement();
                    ResultSet row = read.executeQuery(READ_MARK_SQL)) {
                row.next();
                seen = row.getString("mark");
            }
        } finally {
            connection.rollback();
            connection.setAutoCommit(autoCommit);
        }
        return !mark.equals(seen);
    }
}
