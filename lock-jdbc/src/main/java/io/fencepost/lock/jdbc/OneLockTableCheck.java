package io.fencepost.lock.jdbc;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import javax.sql.DataSource;

/**
 * At start-up, before the schema is created or checked: refuses a lock table while another lock table of the same
 * application is in use in the database ({@link OtherLockTables}), unless that is allowed.
 *
 * @param dataSource the manager's connections
 * @param others the lock tables to look for, other than the manager's own
 * @param timeoutSeconds the query timeout of the look
 */
record OneLockTableCheck(DataSource dataSource, OtherLockTables others, int timeoutSeconds) {

    private static final System.Logger LOG = System.getLogger(OneLockTableCheck.class.getName());

    /**
     * Looks for the other lock tables in use; a database that cannot be reached is not checked (the manager's calls
     * fail closed until it answers, and the schema step, unless SchemaMode.NONE, fails on its own).
     *
     * @param allowed whether other lock tables in use are only logged
     * @throws LockTableSplitException when one is in use and that is not allowed
     */
    void check(boolean allowed) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            warnUnchecked("could not reach the database", e);
            return;
        }
        List<OtherLockTables.InUse> inUse;
        try (connection) {
            inUse = others.find(connection, timeoutSeconds);
        } catch (SQLException e) {
            if (connectionLost(e)) {
                warnUnchecked("lost the connection to the database", e);
                return;
            }
            throw new UnsafeLockStoreException(
                    "could not look for Fencepost lock tables other than '" + others.ownTable() + "' (SQLState "
                            + e.getSQLState() + "): " + e.getMessage() + "; check the database connection",
                    e);
        }
        if (inUse.isEmpty()) {
            return;
        }
        List<String> described =
                inUse.stream().map(OtherLockTables.InUse::describe).toList();
        if (allowed) {
            LOG.log(
                    Level.WARNING,
                    "other Fencepost lock tables than ''{0}'' are in use by {1}, as allowed: {2}; locks taken in"
                            + " different tables do not exclude each other",
                    others.ownTable(),
                    whose(),
                    String.join("; ", described));
            return;
        }
        throw new LockTableSplitException(
                others.ownTable(),
                others.application(),
                inUse.stream().map(OtherLockTables.InUse::name).toList(),
                "fencepost refuses the lock table '" + others.ownTable() + "': another Fencepost lock table is in use"
                        + " by " + whose() + " in this database: " + String.join("; ", described) + ". Instances"
                        + " that lock in different tables do not exclude each other. Give every instance the same"
                        + " table (fencepost.jdbc.table-name, PostgresLockManager.Builder.tableName) and the same"
                        + " search_path; if separate tables are intended, allow them with"
                        + " fencepost.jdbc.allow-other-lock-tables=true (Builder.allowOtherLockTables(true))");
    }

    private void warnUnchecked(String what, SQLException e) {
        LOG.log(
                Level.WARNING,
                "{0} while looking for lock tables other than ''{1}'' at start-up, which are not checked ({2})",
                what,
                others.ownTable(),
                e.toString());
    }

    /** As in {@link ServerCheck}: a connection that broke or timed out says nothing of the database. */
    private static boolean connectionLost(SQLException failure) {
        String state = failure.getSQLState();
        return failure instanceof SQLTransientConnectionException
                || failure instanceof SQLRecoverableException
                || (state != null && (state.startsWith("08") || state.startsWith("57P")));
    }

    private String whose() {
        return others.application() == null
                ? "some application (no application name is set, so any lease counts)"
                : "application '" + others.application() + "'";
    }
}
