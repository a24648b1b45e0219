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
            CREATE TABLE IF NOT EXISTS {table} (
                lock_key      text PRIMARY KEY,
                owner_token   uuid NOT NULL,
                fencing_token bigint NOT NULL,
                expires_at    timestamptz NOT NULL
            );
            CREATE SEQUENCE IF NOT EXISTS durable_floor_fence_seq;
            """;

    /**
     * Fencepost's lease rows have their fencing token as a key (a unique index), so that a fenced transaction's
     * key-share lock on the row blocks a change of grant but not a renewal: every grant then writes new index entries
     * instead of a heap-only update. This variant pays that too, to tell its cost from the rest of the gap.
     */
    private static final String KEY_SQL = "CREATE UNIQUE INDEX IF NOT EXISTS {table}_token ON {table} (fencing_token)";

    // synchronous_commit on for this statement's transaction, whatever the server's default: the grant is durable.
    private static final String GRANT_SQL = """
            INSERT INTO {table} AS l (lock_key, owner_token, fencing_token, expires_at)
            SELECT ?, ?, nextval('durable_floor_fence_seq'), clock_timestamp() + ? * interval '1 millisecond'
              FROM (SELECT set_config('synchronous_commit', 'on', true)) AS durable
            ON CONFLICT (lock_key) DO UPDATE
               SET owner_token = excluded.owner_token, fencing_token = excluded.fencing_token,
                   expires_at = excluded.expires_at
            RETURNING l.fencing_token
            """;

    private final long leaseMillis;

    private final String grantSql;

    /**
     * The keyed floor whose release also ends the lease in its row, as any lease store must (a lease that outlives its
     * release would keep the key from the next holder once the queue no longer orders them): the unlock's statement
     * first sets the row's expiry to now, committed asynchronously, as Fencepost's release does with its delete.
     */
    private static final String ENDING_UNLOCK_SQL = """
            WITH k AS MATERIALIZED (SELECT ?::text AS key, set_config('synchronous_commit', 'off', true) AS async),
            ended AS (
                UPDATE durable_floor_ended_lease AS l SET expires_at = clock_timestamp()
                  FROM k WHERE l.lock_key = k.key
                RETURNING 1
            )
            -- the join reads the update's outcome first, so the unlock comes after the row is written
            SELECT pg_advisory_unlock(%d, hashtext(k.key)) FROM k LEFT JOIN (SELECT count(*) FROM ended) AS e ON true
            """.formatted(LOCK_CLASS);

    public DurableFloorClient(ClientContext context) {
        this(context, "durable_floor_lease", false, Statements.inClass(LOCK_CLASS));
    }

    /** The floor on a lease table whose fencing token is a key of the row, as Fencepost's is. */
    public static DurableFloorClient keyed(ClientContext context) {
        return new DurableFloorClient(context, "durable_floor_keyed_lease", true, Statements.inClass(LOCK_CLASS));
    }

    /** The keyed floor whose release ends the lease in its row before it unlocks. */
    public static DurableFloorClient ending(ClientContext context) {
        Statements queue = Statements.inClass(LOCK_CLASS);
        return new DurableFloorClient(
                context,
                "durable_floor_ended_lease",
                true,
                new Statements(queue.lock(), queue.tryLock(), ENDING_UNLOCK_SQL));
    }

    private DurableFloorClient(ClientContext context, String table, boolean keyed, Statements statements) {
        super(context, statements);
        this.leaseMillis = context.leaseTime().toMillis();
        this.grantSql = GRANT_SQL.replace("{table}", table);
        try (Connection connection = context.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(SCHEMA_SQL.replace("{table}", table));
            if (keyed) {
                statement.execute(KEY_SQL.replace("{table}", table));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("creating the durable floor's lease table failed", e);
        }
    }

    @Override
    void granted(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(grantSql)) {
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
