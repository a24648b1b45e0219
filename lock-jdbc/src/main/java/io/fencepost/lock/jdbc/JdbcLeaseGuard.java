package io.fencepost.lock.jdbc;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.core.LeaseGrant;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * Binds a transaction on the lock table's own database to a lease: called right before the transaction commits, it
 * lets the transaction commit only if the lease is still held, and keeps every new grant of the key from committing
 * until the transaction has ended. A holder that paused past its lease then has its whole transaction rolled back,
 * with no fence column in the tables it writes.
 *
 * <p>Typical use, in the transaction that does the work the lease protects:
 *
 * <pre>{@code
 * try (Lease lease = locks.acquire("account:42", options)) {
 *     connection.setAutoCommit(false);
 *     // ... write on the connection ...
 *     guard.holdUntilCommit(connection, lease); // throws LeaseLostException: roll back
 *     connection.commit();
 * }
 * }</pre>
 *
 * <p>It costs one statement in the transaction. While the transaction stays open after it, grants of the key wait for
 * it, so it also bounds the transaction by the lease's remaining time: a transaction left idle longer than that ends
 * its session (PostgreSQL's {@code idle_in_transaction_session_timeout}, set for this transaction only), and a
 * statement running longer is cancelled; on PostgreSQL 17+ ({@code transaction_timeout}) so is the transaction as a
 * whole. Make the check the transaction's last statement before the commit: before 17 nothing bounds a holder that
 * keeps running short statements after it. Under REPEATABLE READ (and SERIALIZABLE), take the lease before the
 * transaction's first statement, as {@code @DistributedLock} does: a grant made after the transaction's snapshot
 * looks to the check like a change of grant.
 */
public final class JdbcLeaseGuard {

    /** PostgreSQL's SQLSTATE for a serialization failure. */
    private static final String SERIALIZATION_FAILURE = "40001";

    /** PostgreSQL's SQLSTATE for a relation that does not exist. */
    private static final String UNDEFINED_TABLE = "42P01";

    /** PostgreSQL's SQLSTATE for a write in a read-only transaction. */
    private static final String READ_ONLY_TRANSACTION = "25006";

    private final TableName table;

    private final NamedStatement statement;

    /** A guard on the default lock table, {@value PostgresLockManager#DEFAULT_TABLE_NAME}. */
    public JdbcLeaseGuard() {
        this(PostgresLockManager.DEFAULT_TABLE_NAME);
    }

    /**
     * A guard on the lock table {@code lockTableName}: the table of the lock manager that grants the leases.
     *
     * @throws IllegalArgumentException for an invalid table name
     */
    public JdbcLeaseGuard(String lockTableName) {
        this.table = TableName.of(lockTableName);
        this.statement = new PostgresStatements(table).holdUntilCommit;
    }

    /**
     * In the transaction open on {@code transaction}, right before it commits: checks by the database clock that
     * {@code lease} is still live and still this grant, and keeps any new grant of its key from committing until the
     * transaction ends. One statement; nothing is committed or rolled back here.
     *
     * @param transaction a connection with autocommit off, on the lock table's database, whose transaction does the
     *     work the lease protects
     * @param lease an exclusive lease granted by a lock manager on this guard's lock table, not released
     * @throws LeaseLostException when the lease is no longer held (expired, taken over, handed over or force-released):
     *     the caller must roll the transaction back
     * @throws IllegalArgumentException for a null connection or lease, a lease not granted by a fencepost lock
     *     manager, or a shared lease or permit
     * @throws IllegalStateException for a released lease, a connection in autocommit mode or in a read-only
     *     transaction, or a connection whose database has no such lock table
     * @throws SQLException when the statement fails otherwise; the caller must roll the transaction back
     */
    public void holdUntilCommit(Connection transaction, Lease lease) throws SQLException {
        if (transaction == null) {
            throw new IllegalArgumentException(
                    "transaction must not be null: pass the connection whose transaction the lease protects");
        }
        LeaseGrant grant = LeaseGrant.of(lease);
        if (grant.mode() != LeaseMode.EXCLUSIVE) {
            throw new IllegalArgumentException(
                    "a transaction can only be bound to an exclusive lease, but the lease on '" + grant.key() + "' is "
                            + grant.mode() + ": take the key exclusively for work that writes");
        }
        if (transaction.getAutoCommit()) {
            throw new IllegalStateException("the lease on '" + grant.key() + "' can only hold a transaction open on"
                    + " the connection, but it is in autocommit mode: call setAutoCommit(false) (or use"
                    + " @Transactional) and do the work in that transaction first");
        }
        if (transaction.isReadOnly()) {
            throw new IllegalStateException("the transaction bound to the lease on '" + grant.key()
                    + "' is read-only, so it has nothing to protect: drop the binding (fenceTransaction) or readOnly");
        }
        boolean found;
        boolean ours;
        long remainingMillis;
        try (PreparedStatement check = transaction.prepareStatement(statement.jdbcSql())) {
            statement.bind(
                    check,
                    Map.of(
                            "key", grant.key(),
                            "owner", OwnerTokens.toUuid(grant.ownerToken()),
                            "token", grant.fencingToken(),
                            "confirmed", OffsetDateTime.ofInstant(grant.expiresAt(), ZoneOffset.UTC)));
            try (ResultSet rows = check.executeQuery()) {
                rows.next();
                found = rows.getBoolean("found");
                ours = rows.getBoolean("ours");
                remainingMillis = rows.getLong("remaining_ms");
            }
        } catch (SQLException e) {
            throw translated(e, grant);
        }
        if (!found) {
            throw lost(
                    grant,
                    "the lock table has no lease on the key any more (it was released or force-released,"
                            + " perhaps by a later holder after it expired)");
        }
        if (!ours) {
            throw lost(grant, "the key was granted again since (taken over after the lease expired, or handed over)");
        }
        if (remainingMillis <= 0) {
            throw lost(grant, "it expired by the database clock " + -remainingMillis + " ms before the check");
        }
    }

    private SQLException translated(SQLException e, LeaseGrant grant) {
        String state = e.getSQLState();
        if (SERIALIZATION_FAILURE.equals(state)) {
            LeaseLostException lost = lost(
                    grant,
                    "its grant was replaced or removed after this transaction's snapshot"
                            + " was taken (taken over, handed over, released or force-released); under REPEATABLE READ, also"
                            + " when the lease was granted after the transaction's first statement: take it before");
            lost.initCause(e);
            throw lost;
        }
        if (UNDEFINED_TABLE.equals(state)) {
            throw new IllegalStateException(
                    "the transaction's database has no lock table '" + table.table()
                            + "' on its search_path: bind the transaction to a lease on the database that holds the lock"
                            + " table (the lock manager's own), or name that manager's table in JdbcLeaseGuard",
                    e);
        }
        if (READ_ONLY_TRANSACTION.equals(state)) {
            throw new IllegalStateException(
                    "the transaction bound to the lease on '" + grant.key()
                            + "' is read-only, so it has nothing to protect: drop the binding (fenceTransaction) or readOnly",
                    e);
        }
        return e;
    }

    private static LeaseLostException lost(LeaseGrant grant, String reason) {
        return new LeaseLostException(
                grant.key(), grant.fencingToken(), reason + "; roll the transaction back, its work must not commit");
    }

    @Override
    public String toString() {
        return "JdbcLeaseGuard[table=" + table.table() + "]";
    }
}
