package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import io.fencepost.lock.jdbc.test.CloseAfterEach;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A set's release never waits for a row lock while it holds another. Statements that lock several rows of a set, each
 * in an order of its own (the batched renewal, a set acquire meeting the rows in its conflict, the set's release), would
 * otherwise deadlock, and PostgreSQL would abort one of them: a release aborted that way leaves the set's keys held
 * until their leases expire. Here another transaction plays such a statement: it holds the row of the set's second key
 * while the set is released, then asks for the row of the first.
 */
class SetReleaseRowLocksTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final String TABLE = "set_release_row_locks";

    @RegisterExtension
    final CloseAfterEach closer = new CloseAfterEach();

    @Test
    void aReleaseMeetingARowLockedElsewhereNeitherDeadlocksNorLeavesALeaseBehind() throws Exception {
        LockManager locks = closer.add(
                PostgresLockManager.builder(db.dataSource()).tableName(TABLE).build());
        String first = "row-locks:a:" + UUID.randomUUID();
        String second = "row-locks:b:" + UUID.randomUUID();
        MultiLease set = locks.acquireAll(List.of(first, second), LockOptions.of(Duration.ofMinutes(5)));

        try (Connection other = db.dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (Statement settings = other.createStatement()) {
                settings.execute("SET LOCAL lock_timeout = '20s'");
            }
            assertThat(lockRow(other, second)).isTrue();
            CompletableFuture<Boolean> release = CompletableFuture.supplyAsync(set::release);
            await().atMost(Duration.ofSeconds(10)).until(() -> waitsFor(other));

            // a deadlock would abort this statement (or the release) after deadlock_timeout; it finds the row gone
            assertThat(lockRow(other, first))
                    .as("the first key's row, released while the second's was locked")
                    .isFalse();
            other.commit();

            assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(locks.inspect(first)).isEmpty();
        assertThat(locks.inspect(second)).isEmpty();
    }

    /** Locks {@code key}'s row in {@code connection}'s transaction; false when there is none. */
    private static boolean lockRow(Connection connection, String key) throws SQLException {
        try (PreparedStatement lock =
                connection.prepareStatement("SELECT 1 FROM " + TABLE + " WHERE lock_key = ? FOR UPDATE")) {
            lock.setString(1, key);
            try (ResultSet rows = lock.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** Whether some session waits for a lock that {@code holder}'s session holds. */
    private static boolean waitsFor(Connection holder) throws SQLException {
        int pid;
        try (Statement statement = holder.createStatement();
                ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            pid = rows.getInt(1);
        }
        try (Connection probe = db.dataSource().getConnection();
                PreparedStatement query = probe.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))")) {
            query.setInt(1, pid);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1) > 0;
            }
        }
    }
}
