package io.fencepost.lock.jdbc;

import io.fencepost.lock.internal.LogSafe;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * What a {@link PostgresStatements#RELEASE} did: whether the lease it ended was live, and the wake-up it named (a grant
 * for the waiter it handed the key to, or the key for its waiters), which {@link #wakeUpAfterCommit} sends once the
 * release has committed.
 */
record ReleaseOutcome(boolean wasLive, String wakeUpChannel, String wakeUpPayload) {

    /**
     * Sends the wake-up that a {@link PostgresStatements#RELEASE} named, after that release has committed, in a transaction of its own
     * that does not wait for a WAL flush. A NOTIFY takes a server-wide lock at commit and holds it until the commit is
     * done, flush included: inside the durable hand-over it would keep every other notifying commit of the server from
     * sharing that flush. Out here it is held for no flush, and the grant it announces is durable before anyone hears
     * of it. A wake-up is a hint: one lost with a crash between the two costs the waiter its next re-check.
     */
    static final String WAKE_UP_SQL = """
            SELECT pg_notify(:channel, :payload)
              FROM (SELECT set_config('synchronous_commit', 'off', true)) AS g
            """;

    private static final System.Logger LOG = System.getLogger(ReleaseOutcome.class.getName());

    /** The release statement's row; no row: the lease was not ours. */
    static ReleaseOutcome read(ResultSet rows) throws SQLException {
        if (!rows.next()) {
            return new ReleaseOutcome(false, null, null);
        }
        return new ReleaseOutcome(
                rows.getBoolean("was_live"), rows.getString("wake_up_channel"), rows.getString("wake_up_payload"));
    }

    /**
     * Sends the wake-up, if the release named one, on {@code connection} (in autocommit: the release has committed),
     * with {@link #WAKE_UP_SQL}. It is a hint: a failure is logged and costs the waiters their next
     * re-check, never the release, which is done.
     */
    void wakeUpAfterCommit(Connection connection, NamedStatement wakeUp, String key) {
        if (wakeUpChannel == null) {
            return;
        }
        try {
            StatementRunner.query(
                    connection, wakeUp, c -> Map.of("channel", wakeUpChannel, "payload", wakeUpPayload), rows -> null);
        } catch (SQLException e) {
            // The payload of a grant carries a check, not the owner token; it is left out all the same.
            LOG.log(
                    Level.DEBUG,
                    "could not wake the waiters of lock ''{0}'' after its release: {1} (SQLState {2})",
                    LogSafe.text(key),
                    e.getClass().getSimpleName(),
                    e.getSQLState());
        }
    }

    @Override
    public String toString() {
        return "ReleaseOutcome[wasLive=" + wasLive + ", wakeUp=" + (wakeUpChannel != null) + "]";
    }
}
