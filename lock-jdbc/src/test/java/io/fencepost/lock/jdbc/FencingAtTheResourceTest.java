package io.fencepost.lock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The paused-holder failure, reproduced on PostgreSQL: A holds the lock, stops renewing and pauses past
 * its lease (a GC pause); B takes over and writes; A wakes and writes with its stale token. With the fencing
 * guard A's write is refused and B's stands; without it, B's update is lost.
 */
class FencingAtTheResourceTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final String KEY = "account:1";

    private final JdbcFencingGuard guard = new JdbcFencingGuard();

    @BeforeEach
    void resetAccount() throws SQLException {
        PostgresLockManager.create(db.dataSource()).close();
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS account (id int PRIMARY KEY, balance bigint NOT NULL)");
            statement.execute("DELETE FROM account");
            statement.execute("DELETE FROM distributed_lock_fence");
            statement.execute("INSERT INTO account VALUES (1, 100)");
        }
    }

    @Test
    void aPausedHoldersLateWriteIsRejectedAndTheNewHoldersWriteStands() throws Exception {
        Scenario scenario = runPausedHolderScenario(true);

        assertThat(scenario.staleWrite.get(30, TimeUnit.SECONDS))
                .isInstanceOf(FencingTokenRejectedException.class)
                .hasMessageContaining("account:1");
        assertThat(balance()).as("B's deposit stands").isEqualTo(150);
    }

    @Test
    void withoutTheGuardThePausedHoldersLateWriteLosesTheNewHoldersUpdate() throws Exception {
        Scenario scenario = runPausedHolderScenario(false);

        assertThat(scenario.staleWrite.get(30, TimeUnit.SECONDS)).isNull();
        assertThat(balance()).as("A overwrote B's deposit with its stale read").isEqualTo(70);
    }

    private record Scenario(CompletableFuture<Throwable> staleWrite) {}

    private Scenario runPausedHolderScenario(boolean fenced) throws Exception {
        PostgresLockManager a = PostgresLockManager.builder(db.dataSource())
                .holderName("A")
                .schemaMode(SchemaMode.NONE)
                .build();
        PostgresLockManager b = PostgresLockManager.builder(db.dataSource())
                .holderName("B")
                .schemaMode(SchemaMode.NONE)
                .build();
        try {
            Lease leaseA = a.acquire(KEY, LockOptions.of(Duration.ofMillis(800)));
            long balanceSeenByA = balance();
            CountDownLatch wake = new CountDownLatch(1);
            // A's process freezes: its renewal thread stops with everything else, and its worker sleeps.
            a.close();
            CompletableFuture<Throwable> staleWrite = CompletableFuture.supplyAsync(() -> {
                try {
                    wake.await();
                    write(fenced, leaseA.fencingToken(), balanceSeenByA - 30);
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            });

            try (Lease leaseB = b.acquire(
                    KEY, LockOptions.builder().waitTime(Duration.ofSeconds(10)).build())) {
                assertThat(leaseB.fencingToken()).isGreaterThan(leaseA.fencingToken());
                write(fenced, leaseB.fencingToken(), balance() + 50);
            }

            wake.countDown();
            return new Scenario(staleWrite);
        } finally {
            b.close();
        }
    }

    private void write(boolean fenced, long token, long newBalance) throws SQLException {
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (fenced) {
                    guard.check(connection, KEY, token);
                }
                try (PreparedStatement update =
                        connection.prepareStatement("UPDATE account SET balance = ? WHERE id = 1")) {
                    update.setLong(1, newBalance);
                    update.executeUpdate();
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    private long balance() throws SQLException {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT balance FROM account WHERE id = 1")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void equalTokensPassAndAStaleTokenIsRejectedWithTheTokenThatBeatIt() throws Exception {
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            guard.check(connection, "r", 10);
            guard.check(connection, "r", 10);
            guard.check(connection, "r", 12);
            assertThatThrownBy(() -> guard.check(connection, "r", 11))
                    .isInstanceOfSatisfying(FencingTokenRejectedException.class, e -> {
                        assertThat(e.token()).isEqualTo(11);
                        assertThat(e.highestAccepted()).isEqualTo(12);
                        assertThat(e.resource()).isEqualTo("r");
                    });
            connection.commit();
            connection.setAutoCommit(true);
        }
    }

    @Test
    void aCheckRolledBackWithItsWriteDoesNotAdvanceTheResource() throws Exception {
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            guard.check(connection, "rollback", 5);
            connection.commit();
            guard.check(connection, "rollback", 9);
            connection.rollback();
            guard.check(connection, "rollback", 7);
            connection.commit();
            connection.setAutoCommit(true);
        }
    }

    @Test
    void aStaleWriterRacingANewerOneWaitsForItsCommitAndIsThenRejected() throws Exception {
        try (Connection newer = db.dataSource().getConnection();
                Connection stale = db.dataSource().getConnection()) {
            newer.setAutoCommit(false);
            stale.setAutoCommit(false);
            guard.check(newer, "race", 20);
            CompletableFuture<Throwable> staleCheck = CompletableFuture.supplyAsync(() -> {
                try {
                    guard.check(stale, "race", 19);
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            });
            newer.commit();

            assertThat(staleCheck.get(10, TimeUnit.SECONDS)).isInstanceOf(FencingTokenRejectedException.class);
            stale.rollback();
            newer.setAutoCommit(true);
            stale.setAutoCommit(true);
        }
    }

    @Test
    void aCheckOutsideATransactionIsRefused() throws Exception {
        try (Connection connection = db.dataSource().getConnection()) {
            assertThatThrownBy(() -> guard.check(connection, "auto", 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("setAutoCommit(false)");
        }
    }

    @Test
    void theOneLineSqlPatternRefusesAStaleTokenByUpdatingNoRow() throws Exception {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS fenced_account"
                    + " (id int PRIMARY KEY, balance bigint NOT NULL, fence bigint NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO fenced_account (id, balance) VALUES (1, 0) ON CONFLICT DO NOTHING");
            String write = "UPDATE fenced_account SET balance = ?, fence = ? WHERE id = 1 AND fence <= ?";
            assertThat(update(connection, write, 10, 5)).isEqualTo(1);
            assertThat(update(connection, write, 20, 5)).as("equal token").isEqualTo(1);
            assertThat(update(connection, write, 30, 4)).as("stale token").isZero();
        }
    }

    private static int update(Connection connection, String sql, long balance, long token) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql)) {
            update.setLong(1, balance);
            update.setLong(2, token);
            update.setLong(3, token);
            return update.executeUpdate();
        }
    }
}
