package io.fencepost.lock.benchmarks.clients;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The ceiling for a lease table on PostgreSQL: one autocommit statement to acquire (with a fencing token from a
 * sequence) and one to release, nothing else. In its durable form both commits wait for the WAL flush; the
 * asynchronous-release form commits the release with {@code synchronous_commit = off}, the design Fencepost uses.
 *
 * <p>The bare form is the floor for an attempt on a key someone holds: a plain {@code INSERT … ON CONFLICT DO
 * NOTHING} into a table of its own, with no lease, no fencing token and no row lock on the conflicting row, so a
 * losing attempt is the cheapest statement that can learn the key is taken.
 */
public final class RawSqlClient extends PollingLockClient {

    /** The lease table and its fencing sequence, created by the harness before the run. */
    public static final String SCHEMA_SQL = """
            CREATE TABLE raw_lock (
                lock_key      text PRIMARY KEY,
                owner_token   uuid NOT NULL,
                fencing_token bigint NOT NULL,
                expires_at    timestamptz NOT NULL
            );
            CREATE SEQUENCE raw_lock_fence_seq;
            CREATE TABLE bare_insert_lock (
                lock_key    text PRIMARY KEY,
                owner_token uuid NOT NULL
            );
            """;

    private static final String ACQUIRE_SQL = """
            INSERT INTO raw_lock AS l (lock_key, owner_token, fencing_token, expires_at)
            VALUES (?, ?, nextval('raw_lock_fence_seq'), clock_timestamp() + ? * interval '1 millisecond')
            ON CONFLICT (lock_key) DO UPDATE
               SET owner_token = excluded.owner_token, fencing_token = excluded.fencing_token,
                   expires_at = excluded.expires_at
             WHERE l.expires_at <= clock_timestamp()
            RETURNING l.fencing_token
            """;

    private static final String RELEASE_SQL = """
            DELETE FROM raw_lock WHERE lock_key = ? AND owner_token = ?
            """;

    private static final String RELEASE_ASYNC_SQL = """
            DELETE FROM raw_lock AS l
             USING (SELECT set_config('synchronous_commit', 'off', true)) AS g
             WHERE l.lock_key = ? AND l.owner_token = ?
            """;

    private static final String BARE_ACQUIRE_SQL = """
            INSERT INTO bare_insert_lock (lock_key, owner_token) VALUES (?, ?)
            ON CONFLICT (lock_key) DO NOTHING
            """;

    private static final String BARE_RELEASE_SQL = """
            DELETE FROM bare_insert_lock WHERE lock_key = ? AND owner_token = ?
            """;

    private final DataSource dataSource;

    private final long leaseMillis;

    private final String acquireSql;

    private final String releaseSql;

    /** Whether this is the bare form: no lease to bind, and the update count says whether the row went in. */
    private final boolean bare;

    public RawSqlClient(ClientContext context, boolean asyncRelease) {
        this(context, ACQUIRE_SQL, asyncRelease ? RELEASE_ASYNC_SQL : RELEASE_SQL, false);
    }

    private RawSqlClient(ClientContext context, String acquireSql, String releaseSql, boolean bare) {
        this.dataSource = context.dataSource();
        this.leaseMillis = context.leaseTime().toMillis();
        this.acquireSql = acquireSql;
        this.releaseSql = releaseSql;
        this.bare = bare;
    }

    /** The bare {@code INSERT … ON CONFLICT DO NOTHING} + {@code DELETE}, both autocommit and durable. */
    public static RawSqlClient bareInsert(ClientContext context) {
        return new RawSqlClient(context, BARE_ACQUIRE_SQL, BARE_RELEASE_SQL, true);
    }

    @Override
    public Held tryAcquire(String key) throws Exception {
        UUID owner = UUID.randomUUID();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(acquireSql)) {
            statement.setString(1, key);
            statement.setObject(2, owner);
            if (bare) {
                if (statement.executeUpdate() == 0) {
                    return null;
                }
            } else {
                statement.setLong(3, leaseMillis);
                try (ResultSet rows = statement.executeQuery()) {
                    if (!rows.next()) {
                        return null;
                    }
                }
            }
        }
        return () -> release(key, owner);
    }

    private void release(String key, UUID owner) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(releaseSql)) {
            statement.setString(1, key);
            statement.setObject(2, owner);
            statement.executeUpdate();
        }
    }
}
