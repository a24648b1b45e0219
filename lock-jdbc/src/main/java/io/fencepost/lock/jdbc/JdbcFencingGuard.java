package io.fencepost.lock.jdbc;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Fencing at a resource that lives in PostgreSQL: records, per resource, the highest fencing token accepted,
 * and checks and advances it in the caller's own transaction, so that the business write and the check commit
 * or roll back together.
 *
 * <p>Typical use, inside the transaction that writes the resource:
 *
 * <pre>{@code
 * guard.check(connection, "account:42", lease.fencingToken()); // throws for a superseded holder
 * // ... write account 42 on the same connection, then commit
 * }</pre>
 *
 * <p>The row lock the check takes is held until the transaction ends, so a stale writer racing a newer one
 * waits for it and is then refused. For a table of your own, the same guarantee is one condition on the write:
 * {@code UPDATE account SET balance = ?, fence = ? WHERE id = ? AND fence <= ?} refuses a stale token by
 * updating no row.
 */
public final class JdbcFencingGuard {

    /** Advances the resource's token when ours is at least as high; returns no row when a higher one was seen. */
    private static final String ADVANCE_SQL = """
            INSERT INTO %1$s AS f (resource, fencing_token, accepted_at)
            VALUES (?, ?, clock_timestamp())
            ON CONFLICT (resource) DO UPDATE
               SET fencing_token = excluded.fencing_token, accepted_at = excluded.accepted_at
             WHERE f.fencing_token <= excluded.fencing_token
            RETURNING f.fencing_token
            """;

    /** The token that beat ours, read only on the rejection path. */
    private static final String HIGHEST_SQL = """
            SELECT fencing_token FROM %1$s WHERE resource = ?
            """;

    private final String advanceSql;

    private final String highestSql;

    /** A guard on the default lock table's fence table, {@code distributed_lock_fence}. */
    public JdbcFencingGuard() {
        this(PostgresLockManager.DEFAULT_TABLE_NAME);
    }

    /**
     * A guard on the fence table of the given lock table ({@code <lockTable>_fence}), created with the schema.
     *
     * @throws IllegalArgumentException for an invalid table name
     */
    public JdbcFencingGuard(String lockTableName) {
        TableName table = TableName.of(lockTableName);
        this.advanceSql = ADVANCE_SQL.formatted(table.quotedFenceTable());
        this.highestSql = HIGHEST_SQL.formatted(table.quotedFenceTable());
    }

    /**
     * Accepts {@code token} for {@code resource} if no higher token was accepted before, and records it, as part
     * of the transaction open on {@code connection}. Equal tokens pass: one holder may write many times.
     *
     * @throws FencingTokenRejectedException when a higher token was already accepted: the caller's lease was
     *     superseded and it must not write (roll the transaction back)
     * @throws IllegalStateException when {@code connection} is in autocommit mode, where the check would commit
     *     apart from the write it guards
     * @throws SQLException when the statement fails; the caller's transaction is then to be rolled back
     */
    public void check(Connection connection, String resource, long token) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        requireValidResource(resource);
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("the fencing check on resource '" + resource
                    + "' must run inside the transaction that writes the resource, but the connection is in"
                    + " autocommit mode: call connection.setAutoCommit(false) (or use @Transactional) first");
        }
        try (PreparedStatement advance = connection.prepareStatement(advanceSql)) {
            advance.setString(1, resource);
            advance.setLong(2, token);
            try (ResultSet rows = advance.executeQuery()) {
                if (rows.next()) {
                    return;
                }
            }
        }
        throw new FencingTokenRejectedException(resource, token, highest(connection, resource));
    }

    /** Same as {@link #check(Connection, String, long)} with the lease's fencing token. */
    public void check(Connection connection, String resource, Lease lease) throws SQLException {
        check(connection, resource, lease.fencingToken());
    }

    private long highest(Connection connection, String resource) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(highestSql)) {
            select.setString(1, resource);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) : Long.MIN_VALUE;
            }
        }
    }

    private static void requireValidResource(String resource) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("fenced resource name must not be blank, was '" + resource + "'");
        }
        if (resource.indexOf('\0') >= 0 || resource.codePointCount(0, resource.length()) > 255) {
            throw new IllegalArgumentException("fenced resource name must be at most 255 characters without NUL, was '"
                    + resource.replace('\0', '?') + "'");
        }
    }
}
