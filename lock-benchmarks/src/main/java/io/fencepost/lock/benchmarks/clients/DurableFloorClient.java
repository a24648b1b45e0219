package io.fencepost.lock.benchmarks.clients;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The physical floor of a durable hand-off on PostgreSQL. Waiters queue in the server's own lock queue (a session
 * advisory lock, in a lock class of its own, on a connection kept for the hold), so the server itself wakes the next
 * one when the holder unlocks; each grant is then one durable autocommit upsert of a lease row with a new fencing
 * token, and the release only unlocks. A lock whose grants survive a crash cannot hand a key over with less: one
 * wake-up and one WAL flush.
 */
public final class DurableFloorClient extends AdvisoryLockClient {

    /** Apart from the one-number advisory locks of the plain advisory client. */
    private static final int LOCK_CLASS = 27;

    private static final String SCHEMA_SQL = """
            CREATE TABLE IF NOT EXISTS durable_floor_lease (
                lock_key      text PRIMARY KEY,
                owner_token   uuid NOT NULL,
                fencing_token bigint NOT NULL,
                expires_at    timestamptz NOT NULL
            );
            CREATE SEQUENCE IF NOT EXISTS durable_floor_fence_seq;
            """;

    // synchronous_commit on for this statement's transaction, whatever the server's default: the grant is durable.
    private static final String GRANT_SQL = """
            INSERT INTO durable_floor_lease AS l (lock_key, owner_token, fencing_token, expires_at)
            SELECT ?, ?, nextval('durable_floor_fence_seq'), clock_timestamp() + ? * interval '1 millisecond'
              FROM (SELECT set_config('synchronous_commit', 'on', true)) AS durable
            ON CONFLICT (lock_key) DO UPDATE
               SET owner_token = excluded.owner_token, fencing_token = excluded.fencing_token,
                   expires_at = excluded.expires_at
            RETURNING l.fencing_token
            """;

    private final long leaseMillis;

    public DurableFloorClient(ClientContext context) {
        super(context, Statements.inClass(LOCK_CLASS));
        this.leaseMillis = context.leaseTime().toMillis();
        try (Connection connection = context.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(SCHEMA_SQL);
        } catch (SQLException e) {
            throw new IllegalStateException("creating the durable floor's lease table failed", e);
        }
    }

    @Override
    void granted(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(GRANT_SQL)) {
            statement.setString(1, key);
            statement.setObject(2, UUID.randomUUID());
            statement.setLong(3, leaseMillis);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    throw new SQLException("the lease upsert returned no fencing token");
                }
            }
        }
    }
}
