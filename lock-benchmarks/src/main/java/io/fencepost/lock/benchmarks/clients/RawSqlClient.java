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

    private final DataSource dataSource;

    private final long leaseMillis;

    private final String releaseSql;

    public RawSqlClient(ClientContext context, boolean asyncRelease) {
        this.dataSource = context.dataSource();
        this.leaseMillis = context.leaseTime().toMillis();
        this.releaseSql = asyncRelease ? RELEASE_ASYNC_SQL : RELEASE_SQL;
    }

    @Override
    public Held tryAcquire(String key) throws Exception {
        UUID owner = UUID.randomUUID();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(ACQUIRE_SQL)) {
            statement.setString(1, key);
            statement.setObject(2, owner);
            statement.setLong(3, leaseMillis);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return null;
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
